"""catalog/derive/outcomes.py: a load's records derived at once, cached, and the derived
rules registered in their own slot."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from derive_tree import GROUPS

from panic_lens.catalog import derive as D
from panic_lens.catalog import load_catalog
from panic_lens.rules import meta
from panic_lens.rules.language import api, configs


def test_derive_all_caches_and_a_hand_rule_wins(
    guards: dict[str, Any],
    table: configs.ConfigTable,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    first = D.derive_all([GROUPS], guards, table, hand_rules=())
    assert isinstance(first["0123"], D.Derived)
    assert D.derive_all([GROUPS], guards, table, hand_rules=()) is first  # in memory
    assert list(tmp_path.glob("derived/*.pickle"))
    D.outcomes._MEMO.clear()
    again = D.derive_all([GROUPS], guards, table, hand_rules=())  # from disk
    assert isinstance(again["0123"], D.Derived) and again["0123"].toml == first["0123"].toml
    hand = meta.RuleInfo(
        id="hand", title="t", summary="s", apis=(), default_severity=meta.Severity.ERROR,
        module=meta.LANGUAGE_DETECTOR,
        panic_sites=(meta.BurnSite("crates/burn-nn/src/checks.rs", "is_multiple_of",
                                   "Both channels must be divisible"),),
    )  # fmt: skip
    covered = D.derive_all([GROUPS], guards, table, hand_rules=(hand,))
    assert covered["0123"] == D.Covered(("hand",))


# the id reads as the panic: the config, the first value the condition reads, burn's words
GROUPS_ID = "derived-conv-config-channels-both-divisible-number"


def test_register_derived_fills_its_own_slot(
    guards: dict[str, Any], table: configs.ConfigTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(D.outcomes, "shipped_guards", lambda: guards)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))  # what rules may call
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    before = meta.generation()
    try:
        D.register_derived([GROUPS])
        assert [r.id for r in meta.derived_rules()] == [GROUPS_ID]
        assert meta.rule_by_id(GROUPS_ID) is not None
        assert meta.generation() > before
        with pytest.raises(ValueError):
            meta.set_derived_rules((meta.SHIPPED[0],))
    finally:
        meta.set_derived_rules(())
    assert meta.rule_by_id(GROUPS_ID) is None


def test_records_of_one_panic_share_one_derived_rule(
    guards: dict[str, Any], table: configs.ConfigTable, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    monkeypatch.setattr(D.outcomes, "shipped_guards", lambda: guards)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))  # what rules may call
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    twins = [GROUPS, replace(GROUPS, id="4567"), replace(GROUPS, id="89ab")]
    try:
        for _ in range(2):  # deriving, then from the disk cache
            D.outcomes._MEMO.clear()
            outcomes = D.register_derived(twins)
            assert len({id(o) for o in outcomes.values()}) == 1  # one outcome, shared
            assert [r.id for r in meta.derived_rules()] == [GROUPS_ID]
    finally:
        meta.set_derived_rules(())


def test_records_loaded_from_files_are_derived_again_when_a_file_changes(
    guards: dict[str, Any],
    table: configs.ConfigTable,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loader's print of the files keys the derivation cache: the same files answer from
    it, and an edited file is derived again."""
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    file = tmp_path / "records" / "r.json"
    file.parent.mkdir()

    def outcome(path: str, message: str, stamp: int) -> D.Derived | D.NotDerived | D.Covered:
        fields = {"id": "0123", "schemaVersion": 2, "errorMessage": message,
                  "messagePattern": message[:12], "filePath": path, "lineNumber": 6}  # fmt: skip
        file.write_text(json.dumps({"record": fields}), encoding="utf-8")
        os.utime(file, ns=(stamp, stamp))  # a new mtime even where the clock is coarse
        loaded = load_catalog([file], include_default=False)
        assert loaded.files_print is not None
        D.outcomes._MEMO.clear()
        found = D.derive_all(loaded.catalog.records, guards, table, hand_rules=(),
                             files_print=loaded.files_print)  # fmt: skip
        return found["0123"]

    site, message = GROUPS.panic.file_path or "", GROUPS.panic.error_message
    assert isinstance(outcome(site, message, 1), D.Derived)
    assert len(list((tmp_path / "cache").glob("derived/*.pickle"))) == 1
    # the files' print keys it, not the halves
    monkeypatch.setattr(D.outcomes, "_halves_print", None)
    assert isinstance(outcome(site, message, 1), D.Derived)  # from the disk cache
    assert len(list((tmp_path / "cache").glob("derived/*.pickle"))) == 1  # nothing new written
    far = outcome("crates/burn-nn/src/other.rs", "no such panic", 2)  # edited: no site
    assert isinstance(far, D.NotDerived) and far.kind == D.SITE_NOT_FOUND

"""catalog.derive.outcomes.apart and derive_apart: what a server's first start does once
(derive the shipped records, check the derived rule files) runs in a forked child that fills
the cache folder; the server reads it, and does the same work itself only when there is no
cache or no child could do it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from panic_lens.catalog import load_catalog
from panic_lens.catalog.derive import apart, derive_apart, outcomes
from panic_lens.rules.meta import derived_rules, set_derived_rules

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this system")


def test_apart_runs_the_work_in_a_child(tmp_path: Path) -> None:
    marker = tmp_path / "done"
    assert apart(lambda: marker.write_text(str(os.getpid()))) is True
    assert marker.read_text() != str(os.getpid())  # another process wrote it


def test_a_failing_child_says_so() -> None:
    def fails() -> None:
        raise RuntimeError("no")

    assert apart(fails) is False


def test_derive_apart_fills_the_cache_the_server_then_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(outcomes, "_MEMO", {})
    loaded = load_catalog()
    before = derived_rules()
    try:
        derive_apart(loaded.catalog.records, loaded.files_print)
        assert list((tmp_path / "derived").glob("*.pickle"))  # the child stored the outcomes
        assert list((tmp_path / "rulecheck").glob("*.txt"))  # and its verdicts

        def no_deriving(*args: object, **kwargs: object) -> None:
            raise AssertionError("derived here, not read from the cache")

        monkeypatch.setattr(outcomes, "Deriver", no_deriving)
        found = outcomes.register_derived(loaded.catalog.records, loaded.files_print)
        assert any(isinstance(o, outcomes.Derived) for o in found.values())
        called: list[object] = []
        monkeypatch.setattr(outcomes, "apart", lambda work: called.append(work))
        derive_apart(loaded.catalog.records, loaded.files_print)
        assert called == []  # all stored: no child
    finally:
        set_derived_rules(before)


def test_no_child_without_a_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    called: list[object] = []
    monkeypatch.setattr(outcomes, "apart", lambda work: called.append(work))
    loaded = load_catalog()
    derive_apart(loaded.catalog.records, loaded.files_print)
    assert called == []

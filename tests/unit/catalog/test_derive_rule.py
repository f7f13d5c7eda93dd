"""catalog/derive/rule.py and pipeline.py: the rule file written for a site, shared by the
records of one panic."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from derive_tree import GROUPS, derived, flagged, record

from panic_lens.catalog import derive as D
from panic_lens.rules import meta
from panic_lens.rules.language import api, configs


def test_an_unconditional_panic_is_a_rule_without_condition(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    rec = record("crates/burn-nn/src/conv.rs", 17, "not yet implemented: later is not written yet")
    out = derived(D.derive(rec, guards, table))
    assert out.spec.condition is None
    assert [w.call for w in out.spec.wheres] == ["burn::nn::Conv::later"]
    assert out.spec.id == "derived-conv-later-written-yet"


def test_a_later_panic_on_config_values_is_reported_at_the_config_init(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    rec = record("crates/burn-nn/src/conv.rs", 37, "Either size or scale must be provided")
    out = derived(D.derive(rec, guards, table, rule_id="t-resize"))
    assert [w.call for w in out.spec.wheres] == ["burn::nn::ResizeConfig::init"]
    assert out.spec.fires == "at the first Resize::forward call"
    assert out.spec.condition == (
        "!(config.size != null && config.scale == null)"
        " && !(config.size == null && config.scale != null)"
    )
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-resize")
    src = """\
use burn::nn::ResizeConfig;
fn f(s: Option<usize>) {
    let a = ResizeConfig::new().init();
    let b = ResizeConfig::new().with_size(Some(3)).init();
    let c = ResizeConfig::new().with_size(Some(3)).with_scale(Some(2.0)).init();
    let d = ResizeConfig::new().with_size(s).init();
}
"""
    assert flagged(src, "t-resize") == [3, 5]
    # the values the condition read follow burn's message
    assert out.spec.message == (
        "Either size or scale must be provided (size = {config.size}, scale = {config.scale})"
    )


def test_records_resolving_to_one_site_share_one_rule_citing_each(
    guards: dict[str, Any], table: configs.ConfigTable, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    """Two records of one panic whose halves differ (another line, another message tail) are
    checked by one derived rule, which both records bind to; a record of another panic gets
    its own rule."""
    from panic_lens.catalog.binding import bind_record

    monkeypatch.setattr(D.outcomes, "shipped_guards", lambda: guards)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))  # what rules may call
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    path, message = GROUPS.panic.file_path or "", GROUPS.panic.error_message
    first = record(path, 6, message + " (first run)", rid="aa01")
    second = record(path, 8, message + " (second run)", rid="bb02")
    other = record(
        "crates/burn-nn/src/conv.rs",
        17,
        "not yet implemented: later is not written yet",
        rid="cc03",
    )
    try:
        for _ in range(2):  # deriving, then from the disk cache
            D.outcomes._MEMO.clear()
            outcomes = D.register_derived([first, second, other])
            one, two, three = (derived(outcomes[r]) for r in ("aa01", "bb02", "cc03"))
            assert one is two and one.spec.derived_from == "aa01"
            assert three.spec.derived_from == "cc03"
            ids = (one.spec.id, three.spec.id)
            assert sorted(r.id for r in meta.derived_rules()) == sorted(ids)
            for rec in (first, second):
                assert bind_record(rec, meta.derived_rules()).panic_rules == (ids[0],)
            assert bind_record(other, meta.derived_rules()).panic_rules == (ids[1],)
    finally:
        meta.set_derived_rules(())


def test_a_shared_rule_is_the_one_each_record_derives_alone(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    """Sharing changes only the record a rule says it is derived from: each record derived
    alone writes the same rule file (its id reads as the panic, not the record)."""
    path, message = GROUPS.panic.file_path or "", GROUPS.panic.error_message
    records = [record(path, 4 + i, f"{message} [{i}]", rid=f"r{i}") for i in range(5)]
    shared = D.derive_all(records, guards, table, hand_rules=())
    assert len({id(o) for o in shared.values()}) == 1
    text = derived(shared["r0"]).toml
    for rec in records:
        alone = derived(D.derive(rec, guards, table)).toml
        assert alone == text.replace('derived_from = "r0"', f'derived_from = "{rec.id}"')


def _without_message(guards: dict[str, Any], message: str) -> dict[str, Any]:
    """A copy of `guards` where the panic carrying `message` carries none (as `assert!(c)`)."""
    out = copy.deepcopy(guards)
    for fn in out["functions"].values():
        for panic in fn["panics"]:
            if panic.get("message") == message:
                panic["message"] = None
    return out


def test_records_of_a_panic_without_a_message_share_only_the_same_message(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    """Where burn's panic has no message the rule's message is the record's: records with
    the same message, but for the values it was raised with, share one rule; a record with
    another message gets its own."""
    bare = _without_message(guards, "later is not written yet")
    later = [
        record("crates/burn-nn/src/conv.rs", 17, message, rid=rid)
        for message, rid in (
            ("later: a at 3 in 'Sum'", "x1"), ("later: a at 12 in 'Cat'", "x2"),
            ("later: b at 3 in 'Sum'", "x3"),
        )
    ]  # fmt: skip
    out = D.derive_all(later, bare, table, hand_rules=())
    a, b, c = (derived(out[rid]) for rid in ("x1", "x2", "x3"))
    assert a is b and a.spec.derived_from == "x1" and a.spec.message == "later: a at 3 in 'Sum'"
    assert c.spec.derived_from == "x3" and c.spec.message == "later: b at 3 in 'Sum'"
    assert a.site == c.site
    assert a.spec.id == "derived-conv-later-sum" and c.spec.id == "derived-conv-later-b-sum"


def test_ids_read_as_the_panic_and_stay_unique() -> None:
    from panic_lens.catalog.derive.naming import unique_id

    taken: dict[str, str] = {}
    assert unique_id("derived-x", "a.rs:1", taken) == "derived-x"
    assert unique_id("derived-x", "a.rs:1", taken) == "derived-x"  # the same panic again
    other = unique_id("derived-x", "b.rs:9", taken)
    assert other.startswith("derived-x-") and other != "derived-x"
    assert unique_id("derived-x", "b.rs:9", taken) == other  # stable within a load


def test_a_derived_message_shows_the_values_the_condition_read(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    from panic_lens.engine import analyze

    out = derived(D.derive(GROUPS, guards, table))
    assert out.spec.id == "derived-conv-config-channels-both-divisible-number"
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append(out.spec.id)
    src = (
        "use burn::nn::ConvConfig;\n"
        "fn f(d: &D) { let c = ConvConfig::new([4, 6], [3, 3]).with_groups(4).init(d); }\n"
    )
    (found,) = [f for f in analyze(src, "src/lib.rs").findings if f.rule == out.spec.id]
    assert "groups=4" in found.message  # burn's own hole
    assert "channels_in=4" in found.message


def test_a_parameter_named_like_a_rule_language_value_is_renamed() -> None:
    """`TransformerEncoderLayer::new(config: &TransformerEncoderConfig, device)` reaches the
    dropout's panic: its `config` is no rule's `config` (a config's own `self`), so it is read
    as `config_`, in the condition and the holes; a config's own method keeps `config`."""
    from panic_lens.catalog.derive.model import Entry
    from panic_lens.catalog.derive.rule import _unreserved

    lifted = Entry(
        "burn::nn::transformer::TransformerEncoderLayer::new", "function",
        ["config", "device"], "(config.dropout < 0.0 || config.dropout > 1.0)",
        ["config.dropout", None],
    )  # fmt: skip
    out = _unreserved(lifted)
    assert out.params == ["config_", "device"]
    assert out.condition == "(config_.dropout < 0.0 || config_.dropout > 1.0)"
    assert out.holes == ["config_.dropout", None]
    own = Entry("burn::nn::DropoutConfig::init", "config", [], "config.prob > 1.0", [])
    assert _unreserved(own) == own

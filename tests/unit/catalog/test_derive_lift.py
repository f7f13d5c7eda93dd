"""catalog/derive/lift.py: a guard's conditions carried up the call graph to the calls users
make; what stops on the way is NotDerived with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from derive_tree import CONV, GROUPS, derived, flagged, record, write_tree

from panic_lens.catalog import derive as D
from panic_lens.rules import meta
from panic_lens.rules.language import configs
from panic_lens.rust.burn_guards import build_guards


def test_a_private_helper_is_followed_to_the_config_init(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    out = derived(D.derive(GROUPS, guards, table, rule_id="t-groups"))
    assert out.spec.derived_from == "0123"
    assert [w.call for w in out.spec.wheres] == ["burn::nn::ConvConfig::init"]
    assert out.spec.condition is not None and "config.channels[0]" in out.spec.condition
    assert "config.groups" in out.spec.condition and "%" in out.spec.condition
    assert "{v0}" in (out.spec.message or "") and "{v1}" in (out.spec.message or "")
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-groups")
    src = """\
fn f(device: &Device, n: usize) {
    ConvConfig::new([3, 64], [3, 3]).with_groups(2).init(device);
    ConvConfig::new([4, 64], [3, 3]).with_groups(2).init(device);
    ConvConfig::new([3, 64], [3, 3]).with_groups(n).init(device);
    ConvConfig::new([3, 64], [3, 3]).init(device);
}
"""
    assert flagged(src, "t-groups") == [2]


def test_a_panic_in_a_body_that_may_not_run_is_not_derived(
    tmp_path: Path, table: configs.ConfigTable
) -> None:
    write_tree(tmp_path)
    (tmp_path / "crates/burn-nn/src/conv.rs").write_bytes(
        CONV + b"pub fn each(items: &[usize], k: usize) {\n"
        b'    items.iter().for_each(|_| assert!(k > 0, "k must be positive"));\n}\n'
    )
    guards = build_guards(tmp_path)
    rec = record("crates/burn-nn/src/conv.rs", 24, "k must be positive")
    out = D.derive(rec, guards, table)
    assert isinstance(out, D.NotDerived) and "in a closure" in out.reason

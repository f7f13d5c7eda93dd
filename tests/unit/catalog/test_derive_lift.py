"""catalog/derive/lift.py: a guard's conditions carried up the call graph to the calls users
make; what stops on the way is NotDerived with the reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
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


DATA = b"""
use crate::Conv;
pub trait Dataset {
    fn get(&self, index: usize) -> usize;
}
pub trait Windows {
    fn windows(&self, size: usize) -> usize;
}
pub struct Items;
impl Items {
    pub fn new() -> Self {
        Items
    }
}
impl Dataset for Items {
    fn get(&self, index: usize) -> usize {
        assert!(index < 10, "index past the ten items");
        index
    }
}
impl<T: Dataset> Windows for T {
    fn windows(&self, size: usize) -> usize {
        assert!(size > 0, "a window needs at least one item");
        size
    }
}
pub enum PaddingConfig2d {
    Same,
    Valid,
}
impl PaddingConfig2d {
    pub(crate) fn check(&self, kernel: usize) {
        if *self == PaddingConfig2d::Same {
            assert!(kernel % 2 == 1, "same padding needs an odd kernel");
        }
    }
}
impl Conv {
    pub fn forward(&self, kernel: usize) {
        self.padding.check(kernel);
    }
    pub fn split(&self, parts: usize) {
        assert!(parts <= self.half, "more parts than half the groups");
    }
}
"""


@pytest.fixture(scope="module")
def data_guards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The small tree with a dataset trait, a blanket impl over it and a call through a
    module's field."""
    root = tmp_path_factory.mktemp("burn-data")
    write_tree(root)
    lib = root / "crates/burn-nn/src/lib.rs"
    lib.write_bytes(lib.read_bytes() + b"mod data;\npub use data::*;\n")
    conv = root / "crates/burn-nn/src/conv.rs"
    built = b"Conv {\n            padding: Ignored(self.padding.clone()),\n"
    built += b"            half: self.groups / 2,\n        }\n    }"
    text = conv.read_bytes().replace(
        b"pub struct Conv;", b"pub struct Conv {\n    padding: Ignored<PaddingConfig2d>,\n}"
    )
    conv.write_bytes(text.replace(b"        Conv\n    }", b"        " + built, 1))
    (root / "crates/burn-nn/src/data.rs").write_bytes(DATA)
    return build_guards(root)


def test_a_trait_method_on_a_public_type_is_an_entry_point(
    data_guards: dict[str, Any], table: configs.ConfigTable, registered: list[str],
    checked_against: Callable[[dict[str, Any]], None],
) -> None:  # fmt: skip
    checked_against(data_guards)
    rec = record("crates/burn-nn/src/data.rs", 17, "index past the ten items")
    out = derived(D.derive(rec, data_guards, table, rule_id="t-get"))
    assert [w.call for w in out.spec.wheres] == ["burn::nn::Items::get"]
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-get")
    src = "use burn::nn::{Dataset, Items};\nfn f() {\n    let items = Items::new();\n"
    src += "    items.get(12);\n    items.get(3);\n}\n"
    assert flagged(src, "t-get") == [4]


def test_a_blanket_impl_is_an_entry_point_of_each_public_implementor(
    data_guards: dict[str, Any], table: configs.ConfigTable, registered: list[str],
    checked_against: Callable[[dict[str, Any]], None],
) -> None:  # fmt: skip
    checked_against(data_guards)
    assert data_guards["impls"]["Dataset"] == ["burn::nn::Items"]
    rec = record("crates/burn-nn/src/data.rs", 23, "a window needs at least one item")
    out = derived(D.derive(rec, data_guards, table, rule_id="t-windows"))
    assert [w.call for w in out.spec.wheres] == ["burn::nn::Items::windows"]
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-windows")
    src = "use burn::nn::{Items, Windows};\nfn f() {\n    let items = Items::new();\n"
    src += "    items.windows(0);\n    items.windows(2);\n    [1, 2].windows(0);\n}\n"
    assert flagged(src, "t-windows") == [4]


def test_a_call_through_a_field_is_an_edge_to_the_field_types_method(
    data_guards: dict[str, Any], table: configs.ConfigTable, registered: list[str],
    checked_against: Callable[[dict[str, Any]], None],
) -> None:  # fmt: skip
    checked_against(data_guards)
    (call,) = [c for fn in data_guards["functions"].values() for c in fn["calls"] if "via" in c]
    assert (call["callee"], call["via"]) == ("PaddingConfig2d::check", "self.padding")
    rec = record("crates/burn-nn/src/data.rs", 34, "same padding needs an odd kernel")
    out = derived(D.derive(rec, data_guards, table, rule_id="t-odd"))
    assert [w.call for w in out.spec.wheres] == ["burn::nn::Conv::forward"]
    assert out.spec.condition is not None and 'config.padding == "Same"' in out.spec.condition
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-odd")
    src = """\
use burn::nn::{ConvConfig, PaddingConfig2d};
fn f(device: &Device) {
    let same = ConvConfig::new([2, 2], [3, 3]).with_padding(PaddingConfig2d::Same).init(device);
    same.forward(4);
    same.forward(3);
    let valid = ConvConfig::new([2, 2], [3, 3]).init(device);
    valid.forward(4);
}
"""
    assert flagged(src, "t-odd") == [4]


def test_a_modules_field_is_what_its_config_built_it_of(
    data_guards: dict[str, Any], table: configs.ConfigTable, registered: list[str],
    checked_against: Callable[[dict[str, Any]], None],
) -> None:  # fmt: skip
    """`half: self.groups / 2` in the config's `init`: the module's `self.half` is
    `config.groups / 2` (not a config field of that name, which there is none of)."""
    checked_against(data_guards)
    builds = [fn["builds"] for fn in data_guards["functions"].values() if "builds" in fn]
    assert builds == [
        {"Conv": {"padding": "Ignored(self.padding.clone())", "half": "self.groups / 2"}}
    ]
    rec = record("crates/burn-nn/src/data.rs", 45, "more parts than half the groups")
    out = derived(D.derive(rec, data_guards, table, rule_id="t-half"))
    assert [w.call for w in out.spec.wheres] == ["burn::nn::Conv::split"]
    assert out.spec.condition == "(!((parts <= config.groups / 2)))"
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-half")
    src = """\
use burn::nn::ConvConfig;
fn f(device: &Device) {
    let conv = ConvConfig::new([8, 8], [3, 3]).with_groups(4).init(device);
    conv.split(3);
    conv.split(2);
}
"""
    assert flagged(src, "t-half") == [4]

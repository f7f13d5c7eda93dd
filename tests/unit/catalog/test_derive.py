"""catalog/derive.py: a record's panic site in a small burn-like tree becomes a rule file whose
findings are exactly where the guard is definitely true; what cannot be read exactly is
NotDerived with the reason."""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from panic_lens.catalog import derive as D
from panic_lens.catalog import load_catalog
from panic_lens.catalog.model import Knowledge, Origin, PanicSite, Record
from panic_lens.engine import analyze
from panic_lens.rules import meta
from panic_lens.rules.language import api, configs
from panic_lens.rust.burn_guards import build_guards

TABLE = {
    "burn": "0.9.0",
    "configs": {
        "burn::nn::ConvConfig": {
            "paths": ["burn::nn::ConvConfig", "burn_nn::ConvConfig"],
            "init": "burn::nn::Conv",
            "fields": [
                {"name": "channels", "type": "[usize; 2]"},
                {"name": "kernel_size", "type": "[usize; 2]"},
                {"name": "groups", "type": "usize", "default": "1"},
                {"name": "padding", "type": "PaddingConfig2d", "default": "PaddingConfig2d::Valid"},
            ],
        },
        "burn::nn::ResizeConfig": {
            "paths": ["burn::nn::ResizeConfig"],
            "init": "burn::nn::Resize",
            "fields": [
                {"name": "size", "type": "Option<usize>", "option": True},
                {"name": "scale", "type": "Option<f32>", "option": True},
            ],
        },
    },
}

CHECKS = b"""
pub(crate) fn checks_channels_div_groups(channels_in: usize, channels_out: usize, groups: usize) {
    let in_ok = channels_in.is_multiple_of(groups);
    if !in_ok || !channels_out.is_multiple_of(groups) {
        panic!("Both channels must be divisible by the number of groups. Got \\
             channels_in={channels_in}, groups={groups}");
    }
}

pub(crate) fn check_same_padding_support(kernel_size: &[usize]) {
    for k in kernel_size.iter() {
        if k % 2 == 0 {
            unimplemented!("Same padding with an even kernel size is not supported");
        }
    }
}
"""
CONV = b"""
use super::checks;
pub struct ConvConfig;
pub struct Conv;
impl ConvConfig {
    pub fn init(&self, device: &Device) -> Conv {
        checks::checks_channels_div_groups(self.channels[0], self.channels[1], self.groups);
        if self.padding == PaddingConfig2d::Same {
            checks::check_same_padding_support(&self.kernel_size);
        }
        assert!(self.kernel_size.len() < MAX_RANK, "too many kernel dims");
        Conv
    }
}
impl Conv {
    pub fn later(&self) {
        todo!("later is not written yet");
    }
}
pub struct ResizeConfig;
pub struct Resize;
impl ResizeConfig {
    pub fn init(&self) -> Resize {
        Resize
    }
}
impl Resize {
    pub fn forward(&self, x: usize) -> usize {
        out_size(self.size, self.scale)
    }
}
fn out_size(size: Option<usize>, scale: Option<f32>) -> usize {
    match (size, scale) {
        (Some(size), None) => size,
        (None, Some(_)) => 1,
        _ => panic!("Either size or scale must be provided"),
    }
}
fn orphan(x: usize) {
    assert!(x > 1, "orphan needs more than one");
}
impl Conv {
    pub fn metrics<M: Register>(self, metrics: M) -> Self {
        metrics.register(self, "no panic: a trait's register")
    }
}
"""
TENSOR = b"""
pub struct Tensor;
impl<const D: usize> Tensor<D> {
    pub fn narrow(self, dim: usize, start: usize, length: usize) -> Self {
        check!(TensorCheck::narrow::<D>(&self, dim, start, length));
        self
    }
    pub fn into_scalar(self) -> f32 {
        check!(TensorCheck::into_scalar::<D>(&self.shape()));
        0.0
    }
    pub fn try_into_scalar(self) -> Result<f32, ()> {
        check!(TensorCheck::into_scalar::<D>(&self.shape()));
        Ok(0.0)
    }
    pub fn sum_dim(self, dim: isize) -> Self {
        let dim = unwrap_dim_index(dim.try_dim_index(D), "Sum");
        self
    }
    pub fn cat(tensors: Vec<Self>, dim: isize) -> Self {
        let dim = unwrap_dim_index(dim.try_dim_index(D), "Cat");
        tensors[0]
    }
    pub fn unsqueeze<const D2: usize>(self) -> Tensor<D2> {
        check!(TensorCheck::unsqueeze::<D, D2>());
        self
    }
}
pub fn softmax<const D: usize>(tensor: Tensor<D>, dim: isize) -> Tensor<D> {
    let dim = unwrap_dim_index(dim.try_dim_index(D), "Softmax");
    tensor
}
pub(crate) fn unwrap_dim_index<E>(result: Result<usize, E>, op: &str) -> usize {
    match result {
        Ok(dim) => dim,
        Err(error) => {
            unreachable!()
        }
    }
}
"""
CHECK_RS = b"""
pub(crate) enum TensorCheck { Ok }
impl TensorCheck {
    pub(crate) fn narrow<const D: usize>(
        tensor: &Tensor<D>, dim: usize, start: usize, length: usize,
    ) -> Self {
        let mut check = Self::Ok;
        if start + length > tensor.shape()[dim] {
            check = check.register(
                "Narrow",
                TensorError::new(format!(
                    "Can't narrow at dimension {dim}, start + length exceeds"
                )),
            );
        }
        check
    }
    pub(crate) fn into_scalar<const D: usize>(shape: &Shape) -> Self {
        let mut check = Self::Ok;
        if shape.num_elements() != 1 {
            check = check.register(
                "Into Scalar",
                TensorError::new("Only tensors with 1 element can be converted into scalar."),
            );
        }
        check
    }
    pub(crate) fn unsqueeze<const D1: usize, const D2: usize>() -> Self {
        let mut check = Self::Ok;
        if D2 < D1 {
            check = check.register(
                "Unsqueeze",
                TensorError::new(format!(
                    "Can't unsqueeze smaller tensor, got dim {D2}, expected > {D1}"
                )),
            );
        }
        check
    }
}
"""


def _tree(root: Path) -> None:
    files = {
        "Cargo.toml": b'[workspace.package]\nversion = "0.9.0"\n',
        "crates/burn/Cargo.toml": b'[package]\nname = "burn"\n',
        "crates/burn/src/lib.rs": b"pub use burn_nn as nn;\npub use burn_tensor as tensor;\n",
        "crates/burn-nn/Cargo.toml": b'[package]\nname = "burn-nn"\n',
        "crates/burn-nn/src/lib.rs": b"mod conv;\nmod checks;\npub use conv::*;\n",
        "crates/burn-nn/src/checks.rs": CHECKS,
        "crates/burn-nn/src/conv.rs": CONV,
        "crates/burn-tensor/Cargo.toml": b'[package]\nname = "burn-tensor"\n',
        "crates/burn-tensor/src/lib.rs": b"mod base;\nmod check;\npub use base::*;\n",
        "crates/burn-tensor/src/base.rs": TENSOR,
        "crates/burn-tensor/src/check.rs": CHECK_RS,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)


@pytest.fixture(scope="module")
def guards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("burn")
    _tree(root)
    return build_guards(root)


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> configs.ConfigTable:
    loaded = configs.table_from_data(TABLE, "test table")
    monkeypatch.setattr(configs, "table", lambda: loaded)
    return loaded


@pytest.fixture
def registered() -> Iterator[list[str]]:
    ids: list[str] = []
    yield ids
    for rule_id in ids:
        meta.remove_rule(rule_id)


def record(file: str, line: int, message: str, source: str = "", rid: str = "0123") -> Record:
    panic = PanicSite(
        error_message=message, message_pattern="", file_path=file, line_number=line,
        source_code=source or None,
    )  # fmt: skip
    return Record(rid, panic, Knowledge(), Origin("test.json", 1))


GROUPS = record(
    "crates/burn-nn/src/checks.rs", 6,
    "Both channels must be divisible by the number of groups. Got channels_in={}, groups={}",
)  # fmt: skip


def flagged(src: str, rule_id: str) -> list[int]:
    head = "use burn::nn::ConvConfig;\nuse burn::tensor::Tensor;\n"
    found = analyze(head + src, "src/lib.rs").findings
    return [f.span.start.row - 1 for f in found if f.rule == rule_id]


def derived(result: D.Derived | D.NotDerived) -> D.Derived:
    assert isinstance(result, D.Derived), str(result)
    return result


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


def test_a_loop_under_a_path_condition_becomes_exists(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    rec = record(
        "crates/burn-nn/src/checks.rs", 13,
        "not implemented: Same padding with an even kernel size is not supported",
    )  # fmt: skip
    out = derived(D.derive(rec, guards, table, rule_id="t-same"))
    assert out.spec.condition is not None
    assert 'config.padding == "Same"' in out.spec.condition
    assert "config.kernel_size.exists(k" in out.spec.condition.replace(
        "(config.kernel_size)", "config.kernel_size"
    )
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-same")
    src = """\
fn f(device: &Device, k: usize) {
    ConvConfig::new([3, 3], [2, 3]).with_padding(PaddingConfig2d::Same).init(device);
    ConvConfig::new([3, 3], [3, 3]).with_padding(PaddingConfig2d::Same).init(device);
    ConvConfig::new([3, 3], [2, 2]).init(device);
    ConvConfig::new([3, 3], [k, 3]).with_padding(PaddingConfig2d::Same).init(device);
}
"""
    assert flagged(src, "t-same") == [2]


def test_a_tensor_check_reads_the_receiver_shape(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    rec = record(
        "crates/burn-tensor/src/base.rs", 5,
        "=== Tensor Operation Error ===\n  Operation: 'Narrow'\n  Reason:\n    1. Can't narrow at"
        " dimension {}, start + length exceeds ",
    )  # fmt: skip
    out = derived(D.derive(rec, guards, table, rule_id="t-narrow"))
    assert [w.call for w in out.spec.wheres] == ["burn::tensor::Tensor::narrow"]
    assert out.spec.wheres[0].args == ("dim", "start", "length")
    assert "receiver.dims[" in (out.spec.condition or "")
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-narrow")
    src = """\
fn f(device: &Device, s: usize) {
    let t = Tensor::<2>::zeros([2, 3], device);
    let _a = t.clone().narrow(1, 2, 2);
    let _b = t.clone().narrow(1, 1, 2);
    let _c = t.clone().narrow(1, s, 2);
}
"""
    assert flagged(src, "t-narrow") == [3]


def test_every_caller_of_the_check_a_record_quotes_gets_the_rule(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    """The record quotes `into_scalar`'s `check!` line; `try_into_scalar` runs the same
    check, so it raises the same panic; `num_elements()` of a known shape is its product."""
    rec = record(
        "crates/burn-tensor/src/base.rs", 9,
        "=== Tensor Operation Error ===\n  Operation: 'Into Scalar'\n  Reason:\n    1. Only "
        "tensors with 1 element can be converted into scalar.",
        "check!(TensorCheck::into_scalar::<D>(&self.shape()));",
    )  # fmt: skip
    out = derived(D.derive(rec, guards, table, rule_id="t-scalar"))
    assert sorted(w.call for w in out.spec.wheres) == [
        "burn::tensor::Tensor::into_scalar", "burn::tensor::Tensor::try_into_scalar",
    ]  # fmt: skip
    assert "receiver.numel != 1" in (out.spec.condition or "")
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-scalar")
    src = """\
fn f(device: &Device, t: Tensor<2>) {
    let many = Tensor::<2>::zeros([4, 2], device);
    let one = Tensor::<2>::ones([1, 1], device);
    let _a = many.clone().into_scalar();
    let _b = many.try_into_scalar();
    let _c = one.into_scalar();
    let _d = t.into_scalar();
}
"""
    assert flagged(src, "t-scalar") == [4, 5]


def test_a_register_call_outside_a_tensor_check_is_no_panic(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    line = (
        CONV.decode()
        .splitlines()
        .index('        metrics.register(self, "no panic: a trait\'s register")')
        + 1
    )
    rec = record("crates/burn-nn/src/conv.rs", line, "no panic: a trait's register")
    result = D.derive(rec, guards, table)
    assert isinstance(result, D.NotDerived) and result.kind == D.SITE_NOT_FOUND


def test_a_dim_outside_the_rank_fails_burns_dim_index(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    """`unwrap_dim_index(dim.try_dim_index(D), ..)` fails for a dim outside [-D, D): `D` is
    the receiver's rank, or that of the tensor parameter whose type names it; of an associated
    function with no receiver that returns `Self` (`cat`), the rank of what it returns, which
    the caller's code states (`let c: Tensor<3> = Tensor::cat(..)`). A rank is known from a
    shape the file shows or from the type (`x: Tensor<3>`); an unknown one is silent."""
    line = TENSOR.decode().splitlines().index("            unreachable!()") + 1
    rec = record("crates/burn-tensor/src/base.rs", line, "BoundsError: dimension out of bounds")
    out = derived(D.derive(rec, guards, table, rule_id="t-dim"))
    assert sorted(w.call for w in out.spec.wheres) == [
        "burn::tensor::Tensor::cat", "burn::tensor::Tensor::sum_dim", "burn::tensor::softmax",
    ]  # fmt: skip
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-dim")
    src = """\
fn f<const D: usize>(device: &Device, x: Tensor<3>, y: Tensor<D>) {
    let t = Tensor::<3>::zeros([2, 3, 4], device);
    let _a = t.clone().sum_dim(3);
    let _b = t.clone().sum_dim(-4);
    let _c = t.clone().sum_dim(2);
    let _d = t.clone().sum_dim(-3);
    let _e = burn::tensor::softmax(t.clone(), 5);
    let _f = x.clone().sum_dim(7);
    let _g = x.sum_dim(-3);
    let _h = y.sum_dim(9);
    let _i: Tensor<3> = Tensor::cat(vec![t.clone()], 3);
    let _j: Tensor<3> = Tensor::cat(vec![t.clone()], 2);
    let _k = Tensor::cat(vec![t.clone()], 3);
}
"""
    assert flagged(src, "t-dim") == [3, 4, 7, 8, 11]


def test_a_record_at_the_checks_own_line_gets_the_rule_at_its_callers(
    guards: dict[str, Any], table: configs.ConfigTable, registered: list[str]
) -> None:
    """A record may name the TensorCheck's line in check.rs, where the message is written:
    the rule is at the public calls whose `check!` runs it. The check's generics are the
    turbofish of the `check!` call (`::<D, D2>`: D1 is the receiver's rank), and a rank
    generic the function returns (`-> Tensor<D2>`) is the rank the caller's code states, in
    the call's turbofish or the type of the `let` it goes to."""
    line = CHECK_RS.decode().splitlines().index("        if D2 < D1 {") + 1
    rec = record(
        "crates/burn-tensor/src/check.rs", line,
        "Can't unsqueeze smaller tensor, got dim 2, expected > 3",
    )  # fmt: skip
    out = derived(D.derive(rec, guards, table, rule_id="t-unsqueeze"))
    assert [w.call for w in out.spec.wheres] == ["burn::tensor::Tensor::unsqueeze"]
    assert out.spec.condition == "(result.rank < receiver.rank)"
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-unsqueeze")
    src = """\
fn f(x: Tensor<3>) {
    let _a: Tensor<2> = x.clone().unsqueeze();
    let _b: Tensor<4> = x.clone().unsqueeze();
    let _c: Tensor<2> = x.clone().unsqueeze().clone();
    let _d = x.clone().unsqueeze::<2>();
    let _e = x.clone().unsqueeze::<4>();
}
"""
    assert flagged(src, "t-unsqueeze") == [2, 4, 5]
    assert out.spec.wheres[0].result_generic == 0  # `D2`, the method's first generic


def test_an_unconditional_panic_is_a_rule_without_condition(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    rec = record("crates/burn-nn/src/conv.rs", 17, "not yet implemented: later is not written yet")
    out = derived(D.derive(rec, guards, table))
    assert out.spec.condition is None
    assert [w.call for w in out.spec.wheres] == ["burn::nn::Conv::later"]
    assert out.spec.id == "derived-0123"


def test_what_cannot_be_derived_says_why(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    constant = D.derive(
        record("crates/burn-nn/src/conv.rs", 11, "too many kernel dims"), guards, table
    )
    assert isinstance(constant, D.NotDerived) and constant.kind == D.CONSTRUCT
    assert "the constant `MAX_RANK`" in constant.reason
    orphan = D.derive(
        record("crates/burn-nn/src/conv.rs", 40, "orphan needs more than one"), guards, table
    )
    assert isinstance(orphan, D.NotDerived) and orphan.kind == D.NOT_PUBLIC
    missing = D.derive(record("crates/burn-nn/src/conv.rs", 3, "no such message"), guards, table)
    assert isinstance(missing, D.NotDerived) and missing.kind == D.SITE_NOT_FOUND
    nowhere = D.derive(record("crates/burn-nn/src/other.rs", 3, "x"), guards, table)
    assert isinstance(nowhere, D.NotDerived) and nowhere.kind == D.SITE_NOT_FOUND


def test_line_drift_is_tolerated(guards: dict[str, Any], table: configs.ConfigTable) -> None:
    drifted = record(GROUPS.panic.file_path or "", 40, GROUPS.panic.error_message)
    assert isinstance(D.derive(drifted, guards, table), D.Derived)


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
    D._MEMO.clear()
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


def test_register_derived_fills_its_own_slot(
    guards: dict[str, Any], table: configs.ConfigTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(D, "shipped_guards", lambda: guards)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))  # what rules may call
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    before = meta.generation()
    try:
        D.register_derived([GROUPS])
        assert [r.id for r in meta.derived_rules()] == ["derived-0123"]
        assert meta.rule_by_id("derived-0123") is not None
        assert meta.generation() > before
        with pytest.raises(ValueError):
            meta.set_derived_rules((meta.SHIPPED[0],))
    finally:
        meta.set_derived_rules(())
    assert meta.rule_by_id("derived-0123") is None


def test_records_of_one_panic_share_one_derived_rule(
    guards: dict[str, Any], table: configs.ConfigTable, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    monkeypatch.setattr(D, "shipped_guards", lambda: guards)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))  # what rules may call
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    twins = [GROUPS, replace(GROUPS, id="4567"), replace(GROUPS, id="89ab")]
    try:
        for _ in range(2):  # deriving, then from the disk cache
            D._MEMO.clear()
            outcomes = D.register_derived(twins)
            assert len({id(o) for o in outcomes.values()}) == 1  # one outcome, shared
            assert [r.id for r in meta.derived_rules()] == ["derived-0123"]
    finally:
        meta.set_derived_rules(())


def test_a_panic_in_a_body_that_may_not_run_is_not_derived(
    tmp_path: Path, table: configs.ConfigTable
) -> None:
    _tree(tmp_path)
    (tmp_path / "crates/burn-nn/src/conv.rs").write_bytes(
        CONV + b"pub fn each(items: &[usize], k: usize) {\n"
        b'    items.iter().for_each(|_| assert!(k > 0, "k must be positive"));\n}\n'
    )
    guards = build_guards(tmp_path)
    rec = record("crates/burn-nn/src/conv.rs", 24, "k must be positive")
    out = D.derive(rec, guards, table)
    assert isinstance(out, D.NotDerived) and "in a closure" in out.reason


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


@pytest.mark.parametrize(
    ("rust", "cel"),
    [
        ("n.is_multiple_of(g)", "(n % g == 0)"),
        ("xs.len() > 2", "size(xs) > 2"),
        ("o.is_some() && o.is_none()", "(o != null) && (o == null)"),
        ("x.is_sign_negative()", "(x < 0.0)"),
        ("m == Mode::Same", 'm == "Same"'),
        ("matches!(m, Mode::A | Mode::B { .. })", '(m == "A" || m == "B")'),
        ("(0.0..=1.).contains(&x)", "(0.0 <= x && x <= 1.0)"),
        ("xs.iter().all(|e| e > &0.)", "xs.all(e, e > 0.0)"),
        ("n.unwrap_or(4) > 2", "(n != null ? n : 4) > 2"),
        ("x as f64 > 1_000usize as f64", "double(x) > double(1000)"),
        ("n.is_power_of_two()", "(n in [1, 2, 4"),
        ("x.shape().num_elements() != 1", "x.numel != 1"),
        ("(&x.shape()).num_elements() > n", "x.numel > n"),
    ],
)
def test_rust_expressions_translate_exactly(rust: str, cel: str) -> None:
    translator = D._Translator(
        D._Scope("function", ["n", "g", "xs", "o", "x", "m"], False, frozenset())
    )
    assert translator.expr(rust).startswith(cel)


@pytest.mark.parametrize(
    ("rust", "named"),
    [
        ("x.is_nan()", "the method `.is_nan(..)`"),
        ("LIMIT > n", "the constant `LIMIT`"),
        ("other > n", "the local value `other`"),
        ("n << 2 > 1", "the operator `<<`"),
        ("if n > 1 { true } else { false }", "if expression"),
    ],
)
def test_what_does_not_translate_is_named(rust: str, named: str) -> None:
    translator = D._Translator(D._Scope("function", ["n", "x"], False, frozenset()))
    with pytest.raises(D.Unmapped, match=re.escape(named)):
        translator.expr(rust)


def test_records_resolving_to_one_site_share_one_rule_citing_each(
    guards: dict[str, Any], table: configs.ConfigTable, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    """Two records of one panic whose halves differ (another line, another message tail) are
    checked by one derived rule, which both records bind to; a record of another panic gets
    its own rule."""
    from panic_lens.catalog.binding import bind_record

    monkeypatch.setattr(D, "shipped_guards", lambda: guards)
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
            D._MEMO.clear()
            outcomes = D.register_derived([first, second, other])
            one, two, three = (derived(outcomes[r]) for r in ("aa01", "bb02", "cc03"))
            assert one is two and one.spec.id == "derived-aa01"
            assert three.spec.id == "derived-cc03"
            assert sorted(r.id for r in meta.derived_rules()) == ["derived-aa01", "derived-cc03"]
            for rec in (first, second):
                assert bind_record(rec, meta.derived_rules()).panic_rules == ("derived-aa01",)
            assert bind_record(other, meta.derived_rules()).panic_rules == ("derived-cc03",)
    finally:
        meta.set_derived_rules(())


def test_a_shared_rule_is_the_one_each_record_derives_alone(
    guards: dict[str, Any], table: configs.ConfigTable
) -> None:
    """Sharing changes only the id a rule is named by: each record derived alone writes the
    same rule file but for its own id."""
    path, message = GROUPS.panic.file_path or "", GROUPS.panic.error_message
    records = [record(path, 4 + i, f"{message} [{i}]", rid=f"r{i}") for i in range(5)]
    shared = D.derive_all(records, guards, table, hand_rules=())
    assert len({id(o) for o in shared.values()}) == 1
    text = derived(shared["r0"]).toml
    for rec in records:
        alone = derived(D.derive(rec, guards, table)).toml
        assert alone == text.replace('"derived-r0"', f'"derived-{rec.id}"').replace(
            'derived_from = "r0"', f'derived_from = "{rec.id}"'
        )


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
    assert a is b and a.spec.id == "derived-x1" and a.spec.message == "later: a at 3 in 'Sum'"
    assert c.spec.id == "derived-x3" and c.spec.message == "later: b at 3 in 'Sum'"
    assert a.site == c.site


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
        D._MEMO.clear()
        found = D.derive_all(loaded.catalog.records, guards, table, hand_rules=(),
                             files_print=loaded.files_print)  # fmt: skip
        return found["0123"]

    site, message = GROUPS.panic.file_path or "", GROUPS.panic.error_message
    assert isinstance(outcome(site, message, 1), D.Derived)
    assert len(list((tmp_path / "cache").glob("derived/*.pickle"))) == 1
    monkeypatch.setattr(D, "_halves_print", None)  # the files' print keys it, not the halves
    assert isinstance(outcome(site, message, 1), D.Derived)  # from the disk cache
    assert len(list((tmp_path / "cache").glob("derived/*.pickle"))) == 1  # nothing new written
    far = outcome("crates/burn-nn/src/other.rs", "no such panic", 2)  # edited: no site
    assert isinstance(far, D.NotDerived) and far.kind == D.SITE_NOT_FOUND


def test_the_expect_of_first_or_last_fails_on_an_empty_list(
    tmp_path: Path, table: configs.ConfigTable, registered: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    _tree(tmp_path)
    (tmp_path / "crates/burn-nn/src/conv.rs").write_bytes(
        CONV + b"pub fn head(items: Vec<usize>) -> usize {\n"
        b'    *items.first().expect("items must not be empty")\n}\n'
        b"pub fn tail(items: Vec<usize>) -> usize {\n"
        b'    *items.last().expect("need a last item")\n}\n'
        b"pub fn second(items: Vec<usize>) -> usize {\n"
        b'    *items.get(1).expect("need a second item")\n}\n'
    )
    guards = build_guards(tmp_path)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))  # what rules may call
    head = derived(
        D.derive(record("crates/burn-nn/src/conv.rs", 24, "items must not be empty"), guards,
                 table, rule_id="t-head")
    )  # fmt: skip
    tail = derived(
        D.derive(record("crates/burn-nn/src/conv.rs", 27, "need a last item"), guards, table,
                 rule_id="t-tail")
    )  # fmt: skip
    assert [w.call for w in head.spec.wheres] == ["burn::nn::head"]
    for out in (head, tail):
        meta.add_rule(meta.info_from_spec(out.spec))
        registered.append(out.spec.id)
    src = """\
use burn::nn::{head, tail};
fn f(n: usize, v: Vec<usize>) {
    head(vec![]);
    head(vec![1]);
    head(vec![n]);
    head(v.clone());
    tail(Vec::new());
    tail(vec![0, 0]);
}
"""
    assert flagged(src, "t-head") == [3]
    assert flagged(src, "t-tail") == []
    src_tail = "use burn::nn::tail;\nfn g() {\n    tail(vec![]);\n    tail(vec![2]);\n}\n"
    assert flagged(src_tail, "t-tail") == [3]
    # `.get(i)` on a list is not read: no rule, and the reason names the `.expect`
    second = D.derive(record("crates/burn-nn/src/conv.rs", 30, "need a second item"), guards, table)
    assert isinstance(second, D.NotDerived) and "`.expect(..)`" in second.reason

"""catalog/derive/site.py: the panic a record is about, found in the guards index (its message,
the guard its sourceCode quotes, the nearest line), a TensorCheck's other callers, and a
message a caller passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from derive_tree import CHECK_RS, CONV, GROUPS, derived, flagged, record, write_tree

from panic_lens.catalog import derive as D
from panic_lens.catalog.derive import shipped_guards
from panic_lens.catalog.load import read_records
from panic_lens.catalog.model import Record
from panic_lens.rules import meta
from panic_lens.rules.language import configs
from panic_lens.rust.burn_guards import build_guards


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


OPTS = b"""
use core::num::NonZeroUsize;
fn check_nonzero(value: usize, msg: &str) -> usize {
    NonZeroUsize::new(value).expect(msg);
    value
}
pub struct Opts;
impl Opts {
    pub fn new(stride: [usize; 2], groups: usize) -> Self {
        Self {
            stride: stride.map(|s| check_nonzero(s, "stride must be non-zero")),
            groups: check_nonzero(groups, "groups must be non-zero"),
        }
    }
}
pub struct Other;
impl Other {
    pub fn new(groups: usize, items: Vec<usize>) -> Self {
        let _ = items.iter().map(|i| check_nonzero(*i, "item must be non-zero"));
        Self { groups: check_nonzero(groups, "groups must be non-zero") }
    }
}
"""


def test_a_message_passed_as_an_argument_is_a_site_at_each_call(
    tmp_path: Path, table: configs.ConfigTable, registered: list[str],
    checked_against: Callable[[dict[str, Any]], None],
) -> None:  # fmt: skip
    """`.expect(msg)` with the message a parameter: the record's message is the literal at a
    call, which is the site; burn's other calls with that literal raise the same panic; an
    array's `.map(|s| ..)` runs for every item (an iterator's may not run)."""
    write_tree(tmp_path)
    lib = tmp_path / "crates/burn-nn/src/lib.rs"
    lib.write_bytes(lib.read_bytes() + b"mod opts;\npub use opts::*;\n")
    (tmp_path / "crates/burn-nn/src/opts.rs").write_bytes(OPTS)
    guards = build_guards(tmp_path)
    checked_against(guards)
    groups = derived(
        D.derive(record("crates/burn-nn/src/opts.rs", 13, "groups must be non-zero"), guards,
                 table, rule_id="t-groups")
    )  # fmt: skip
    assert sorted(w.call for w in groups.spec.wheres) == [
        "burn::nn::Opts::new",
        "burn::nn::Other::new",
    ]
    stride = derived(
        D.derive(record("crates/burn-nn/src/opts.rs", 12, "stride must be non-zero"), guards,
                 table, rule_id="t-stride")
    )  # fmt: skip
    assert [w.call for w in stride.spec.wheres] == ["burn::nn::Opts::new"]
    item = D.derive(
        record("crates/burn-nn/src/opts.rs", 20, "item must be non-zero"), guards, table
    )
    assert isinstance(item, D.NotDerived) and "closure" in item.reason
    for out in (groups, stride):
        meta.add_rule(meta.info_from_spec(out.spec))
        registered.append(out.spec.id)
    src = """\
use burn::nn::{Opts, Other};
fn f() {
    Opts::new([1, 0], 2);
    Opts::new([1, 1], 0);
    Other::new(0, vec![]);
    Opts::new([1, 1], 2);
}
"""
    assert flagged(src, "t-stride") == [3]
    assert flagged(src, "t-groups") == [4, 5]


def test_a_message_pattern_over_several_asserts_it_quotes_checks_each_of_them() -> None:
    """The SSIM record's pattern `k[12] must be positive` matches both asserts its sourceCode
    quotes (burn checks k1, then k2): the rule checks and names both, and says both
    messages; a record whose pattern matches its own assert only keeps that one."""
    corpus = Path(__file__).resolve().parents[2] / "corpus" / "panics"
    (rec,) = [
        r for r in read_records(corpus / "ssim-k1-k2-not-positive" / "record.json")
        if isinstance(r, Record)
    ]  # fmt: skip
    guards, table = shipped_guards(), configs.table()
    both = derived(D.derive(rec, guards, table, rule_id="t-k1-k2"))
    assert both.spec.condition == "((!((k1 > 0.0)))) || ((!((k2 > 0.0))))"
    assert {(s.message, s.line) for s in both.spec.sites if "/ssim.rs" in s.file} == {
        ("k1 must be positive", 125), ("k2 must be positive", 126),
    }  # fmt: skip
    assert (both.spec.message or "").startswith("k1 must be positive, or k2 must be positive")
    only_k1 = replace(rec, panic=replace(rec.panic, message_pattern="k1 must be positive"))
    one = derived(D.derive(only_k1, guards, table, rule_id="t-k1"))
    assert one.spec.condition == "(!((k1 > 0.0)))"
    anything = replace(rec, panic=replace(rec.panic, message_pattern=".*"))
    assert derived(D.derive(anything, guards, table, rule_id="t-any")).spec.condition == (
        one.spec.condition
    )


def test_the_shape_of_the_data_an_argument_becomes_is_its_nested_arrays(
    registered: list[str],
) -> None:
    """`Tensor::from_data` checks `data.into().shape` against its rank: the derived rule
    reads the argument's `shape(..)`, a nested array's dims, so a 1-D array given to a
    rank-2 tensor is flagged and a matching or unknown one is not."""
    rec = record(
        "crates/burn-tensor/src/tensor/api/base.rs", 2019,
        "Given dimensions differ from the tensor rank.",
        "check!(TensorCheck::creation_ops::<D>(",
    )  # fmt: skip
    out = derived(D.derive(rec, shipped_guards(), configs.table(), rule_id="t-creation"))
    (from_data,) = [w for w in out.spec.wheres if w.call == "burn::tensor::Tensor::from_data"]
    assert ("fires", "(size((shape(data))) != result.rank)") in from_data.lets
    meta.add_rule(meta.info_from_spec(out.spec))
    registered.append("t-creation")
    src = """\
fn f(device: &Device, v: Vec<f32>) {
    let _a = Tensor::<2>::from_data([1.0, 2.0, 3.0], device);
    let _b = Tensor::<2>::from_data([[1.0, 2.0], [3.0, 4.0]], device);
    let _c = Tensor::<2>::from_data(v, device);
    let _d = Tensor::<1>::from_data([[1.0], [2.0]], device);
}
"""
    assert flagged(src, "t-creation") == [2, 5]

"""catalog/derive/site.py: the panic a record is about, found in the guards index (its message,
the guard its sourceCode quotes, the nearest line), and a TensorCheck's other callers."""

from __future__ import annotations

from typing import Any

from derive_tree import CHECK_RS, CONV, GROUPS, derived, flagged, record

from panic_lens.catalog import derive as D
from panic_lens.rules import meta
from panic_lens.rules.language import configs


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

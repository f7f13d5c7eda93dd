"""catalog/derive/translate.py and conditions.py: Rust expressions and the guards' path items
read as the rule language, exactly, or Unmapped naming the construct."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from derive_tree import CONV, TENSOR, derived, flagged, record, write_tree

from panic_lens.catalog import derive as D
from panic_lens.catalog.derive.translate import Scope, Translator
from panic_lens.rules import meta
from panic_lens.rules.language import api, configs
from panic_lens.rust.burn_guards import build_guards


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
        ("xs.iter().sum::<usize>() != n", "sum(xs) != n"),
        ("xs.iter().product() > n", "product(xs) > n"),
        ("if o.is_some() { n } else { g } > 1", "((o != null) ? n : g) > 1"),
        ("x as f64 > usize::MAX as f64", "double(x) > 1.8446744073709552e+19"),
        ("o.hop_length >= 1", "o.hop_length >= 1"),  # a struct argument's field
    ],
)
def test_rust_expressions_translate_exactly(rust: str, cel: str) -> None:
    translator = Translator(Scope("function", ["n", "g", "xs", "o", "x", "m"], False, frozenset()))
    assert translator.expr(rust).startswith(cel)


@pytest.mark.parametrize(
    ("rust", "named"),
    [
        ("x.is_nan()", "the method `.is_nan(..)`"),
        ("LIMIT > n", "the constant `LIMIT`"),
        ("other > n", "the local value `other`"),
        ("other.len > n", "the local value `other`"),  # a field of no argument
        ("n << 2 > 1", "the operator `<<`"),
        ("if n > 1 { true } else if n > 0 { false } else { true }", "if expression"),
        ("if n > 1 { let m = n; m } else { n }", "if expression"),
    ],
)
def test_what_does_not_translate_is_named(rust: str, named: str) -> None:
    translator = Translator(Scope("function", ["n", "x"], False, frozenset()))
    with pytest.raises(D.Unmapped, match=re.escape(named)):
        translator.expr(rust)


@pytest.mark.parametrize(
    ("pattern", "iterable", "cel"),
    [
        ("(i, x)", "xs.iter().enumerate()", "indices(xs).exists(idx, xs[idx] > idx)"),
        ("(i, &(a, b))", "xs.iter().enumerate()", "indices(xs).exists(idx, xs[idx][0] > idx)"),
        ("(a, b)", "xs.iter().zip(ys)", "indices(xs).exists(idx, xs[idx] > ys[idx])"),
        (
            "(i, (a, b))",
            "xs.iter().zip(ys.iter()).enumerate()",
            "indices(xs).exists(idx, xs[idx] > idx)",
        ),
    ],
)
def test_a_loop_that_takes_its_items_apart_walks_their_indices(
    pattern: str, iterable: str, cel: str
) -> None:
    from panic_lens.catalog.derive.conditions import cel as to_cel

    test = {"(i, x)": "x > i", "(i, &(a, b))": "a > i", "(a, b)": "a > b", "(i, (a, b))": "a > i"}
    translator = Translator(Scope("function", ["xs", "ys"], False, frozenset()))
    items = (("for", pattern, iterable), ("if", test[pattern]))
    assert to_cel(items, translator, {}) == cel.replace("> idx", "> idx)").replace(
        "exists(idx, ", "exists(idx, ("
    ).replace("] > ys[idx]", "] > ys[idx])")


def test_the_expect_of_first_or_last_fails_on_an_empty_list(
    tmp_path: Path, table: configs.ConfigTable, registered: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    write_tree(tmp_path)
    (tmp_path / "crates/burn-nn/src/conv.rs").write_bytes(
        CONV + b"pub fn head(items: Vec<usize>) -> usize {\n"
        b'    *items.first().expect("items must not be empty")\n}\n'
        b"pub fn tail(items: Vec<usize>) -> usize {\n"
        b'    *items.last().expect("need a last item")\n}\n'
        b"pub fn second(items: Vec<usize>) -> usize {\n"
        b'    *items.get(1).expect("need a second item")\n}\n'
        b"pub fn fan(fan_in: Option<usize>) -> usize {\n"
        b'    fan_in.expect("need the fan in")\n}\n'
        b"pub fn locked(cell: &Mutex<usize>) -> usize {\n"
        b'    *cell.lock().expect("the lock is poisoned")\n}\n'
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
    assert flagged(src, "t-tail") == [7]  # `Vec::new()` is empty, as `vec![]`
    src_tail = "use burn::nn::tail;\nfn g() {\n    tail(vec![]);\n    tail(vec![2]);\n}\n"
    assert flagged(src_tail, "t-tail") == [3]
    # `.get(i)` fails past the list's end, an `Option` parameter when it is `None`
    second = derived(
        D.derive(record("crates/burn-nn/src/conv.rs", 30, "need a second item"), guards, table,
                 rule_id="t-second")
    )  # fmt: skip
    fan = derived(
        D.derive(record("crates/burn-nn/src/conv.rs", 33, "need the fan in"), guards, table,
                 rule_id="t-fan")
    )  # fmt: skip
    for out in (second, fan):
        meta.add_rule(meta.info_from_spec(out.spec))
        registered.append(out.spec.id)
    src = """\
use burn::nn::{fan, second};
fn f(n: Option<usize>) {
    second(vec![1]);
    second(vec![1, 2]);
    fan(None);
    fan(Some(3));
    fan(n);
}
"""
    assert flagged(src, "t-second") == [3]
    assert flagged(src, "t-fan") == [5]
    # a `Result` of a lock is not read: no rule, and the reason names the `.expect`
    locked = D.derive(
        record("crates/burn-nn/src/conv.rs", 36, "the lock is poisoned"), guards, table
    )
    assert isinstance(locked, D.NotDerived) and "`.expect(..)`" in locked.reason

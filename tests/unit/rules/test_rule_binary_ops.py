"""binary-op-incompatible-shapes: operators and methods, broadcasting, run-time dims, scalars,
test code, and where operands are evaluated (functions that write a shape source)."""

from __future__ import annotations

from panic_lens.engine import analyze
from panic_lens.model import Finding, HoverFact, Severity

RULE = "binary-op-incompatible-shapes"
HEAD = "use burn::prelude::*;\n"


def found(body: str) -> list[Finding]:
    return [f for f in analyze(HEAD + body).findings if f.rule == RULE]


def lines(body: str) -> list[int]:
    return [f.span.start.row for f in found(body)]


def test_each_operator_and_checked_method_is_flagged_where_a_dim_clashes() -> None:
    body = "fn f(d: &Device) {\n"
    body += (
        "    let a = Tensor::<2>::zeros([2, 3], d);\n    let b = Tensor::<2>::zeros([3, 3], d);\n"
    )
    ops = ["+", "-", "*", "/"]
    methods = ["add", "sub", "mul", "div", "equal", "not_equal", "greater", "greater_equal",
               "lower", "lower_equal"]  # fmt: skip
    body += "".join(f"    let _ = a.clone() {op} b.clone();\n" for op in ops)
    body += "".join(f"    let _ = a.clone().{m}(b.clone());\n" for m in methods)
    body += "}\n"
    assert lines(body) == list(range(4, 4 + len(ops) + len(methods)))


def test_the_message_names_every_clashing_dim_and_the_operation() -> None:
    [f] = found(
        "fn f(d: &Device) {\n"
        "    let _ = Tensor::<3>::ones([2, 4, 5], d) - Tensor::<3>::ones([2, 5, 4], d);\n}\n"
    )
    assert f.message.startswith("Sub of a [2, 4, 5] tensor and a [2, 5, 4] tensor")
    assert "dim 1: 4 != 5, dim 2: 5 != 4" in f.message
    assert f.severity is Severity.ERROR


def test_broadcasting_scalars_remainder_and_unknown_dims_are_silent() -> None:
    body = (
        "fn f(x: Tensor<2>, d: &Device) {\n"
        "    let a = Tensor::<2>::zeros([4, 3], d);\n"
        "    let _ = a.clone() + Tensor::<2>::zeros([1, 3], d);\n"  # broadcast
        "    let _ = a.clone() * Tensor::<2>::zeros([4, 1], d);\n"
        "    let _ = a.clone() * 2.0 - 1.0;\n"  # scalars
        "    let _ = 3.0 / a.clone();\n"
        "    let _ = a.clone() % Tensor::<2>::zeros([3, 4], d);\n"  # remainder: no check
        "    let _ = a.clone() + x.clone();\n"  # x's dims are not known
        "    let [n, _] = x.dims();\n"
        "    let _ = Tensor::<2>::zeros([n, 3], d) + Tensor::<2>::zeros([4, 3], d);\n"
        "}\n"
    )
    assert found(body) == []


def test_a_run_time_dim_is_skipped_and_a_known_one_still_compared() -> None:
    body = (
        "fn f(x: Tensor<2>, d: &Device) {\n"
        "    let [batch, _] = x.dims();\n"
        "    let a = Tensor::<2>::zeros([batch, 10], d);\n"
        "    let _ = a.clone() + Tensor::<2>::zeros([batch, 12], d);\n"
        "}\n"
    )
    [f] = found(body)
    assert "dim 1: 10 != 12" in f.message and "dim 0" not in f.message


def test_test_code_is_a_hint_and_a_should_panic_test_is_silent() -> None:
    pair = "Tensor::<1>::zeros([3], &d) + Tensor::<1>::zeros([4], &d)"
    test = f"#[test]\nfn t() {{ let d = Default::default(); let _ = {pair}; }}\n"
    [f] = found(test)
    assert f.severity is Severity.HINT
    assert found("#[test]\n#[should_panic]\n" + test.removeprefix("#[test]\n")) == []


def test_a_project_type_with_an_add_method_is_not_burns() -> None:
    body = (
        "struct V(Vec<f32>);\nimpl V { fn add(self, o: V) -> V { o } }\n"
        "fn f(d: &Device) {\n    let _t = Tensor::<1>::zeros([2], d);\n"
        "    let _ = V(vec![]).add(V(vec![1.0]));\n}\n"
    )
    assert found(body) == []


def test_operands_are_evaluated_only_in_functions_that_write_a_shape_source() -> None:
    # the helpers' shapes are known ([3] and [4]); `apart` writes no constructor, data or
    # reshape, so its `+` is not looked at, while `here` (which writes `ones(`) is
    body = (
        "fn three(d: &Device) -> Tensor<1> { Tensor::<1>::zeros([3], d) }\n"
        "fn four(d: &Device) -> Tensor<1> { Tensor::<1>::zeros([4], d) }\n"
        "fn apart(d: &Device) -> Tensor<1> { three(d) + four(d) }\n"
        "fn here(d: &Device) -> Tensor<1> { three(d).add(Tensor::<1>::ones([4], d)) }\n"
    )
    assert lines(body) == [4]
    hovers = [h for h in analyze(HEAD + body).hovers if isinstance(h, HoverFact) and h.rule == RULE]
    assert [h.span.start.row for h in hovers if h.flagged] == [4]


def test_a_loss_whose_forward_subtracts_its_tensors_is_flagged_at_the_forward() -> None:
    body = (
        "use burn::nn::loss::{HuberLossConfig, MseLoss, Reduction};\n"
        "fn f(d: &Device) {\n"
        "    let p = Tensor::<2>::zeros([4, 3], d);\n"
        "    let t = Tensor::<2>::zeros([4, 5], d);\n"
        "    let _ = MseLoss::new().forward(p.clone(), t.clone(), Reduction::Mean);\n"
        "    let _ = HuberLossConfig::new(0.5).init().forward_no_reduction(p.clone(), t.clone());\n"
        "    let c = Tensor::<2>::ones([4, 1], d);\n"
        "    let _ = MseLoss::new().forward(p.clone(), c, Reduction::Sum);\n"
        "}\n"
    )
    mse, huber = found(body)
    assert mse.message.startswith("Sub inside MseLoss::forward of a [4, 3] tensor and a [4, 5]")
    # burn's HuberLoss computes `targets - predictions`: the targets are the lhs
    assert huber.message.startswith("Sub inside HuberLoss::forward_no_reduction of a [4, 5]")


HELPER = """
fn hits(best: Tensor<2, Int>, targets: Tensor<1, Int>) -> Tensor<2, Bool> {
    let [n, _] = best.dims();
    best.equal(targets.reshape([n, 1]).repeat_dim(1, 5))
}
pub fn run(d: &Device, m: usize) {
    let _a = hits(Tensor::<2, Int>::zeros([32, 5], d), Tensor::<1, Int>::zeros([32], d));
    let _b = hits(Tensor::<2, Int>::zeros([m, 5], d), Tensor::<1, Int>::zeros([m], d));
    let _c = hits(Tensor::<2, Int>::zeros([32, WIDTH], d), Tensor::<1, Int>::zeros([32], d));
}
"""


def test_a_helpers_operands_are_read_in_each_callers_frame() -> None:
    """Tensor parameters whose dims only the callers give: the caller whose values clash is
    named; callers that fit (a run-time batch too), or give a run-time width, flag nothing."""
    (hit,) = found(HELPER.replace("WIDTH", "3"))
    assert hit.span.start.row == 4
    assert "(when called as hits(Tensor::<2, Int>::zeros([32, 3], d)" in hit.message
    assert hit.message.endswith(" at line 10)")
    assert found(HELPER.replace("WIDTH", "5")) == []
    assert found(HELPER.replace("WIDTH", "m")) == []


def test_a_guard_that_returns_first_in_a_callers_frame() -> None:
    """`if w != 5 { return ..; }` before the op: the caller whose width clashes returns first."""
    guarded = HELPER.replace(
        "    let [n, _] = best.dims();\n",
        "    let [n, w] = best.dims();\n"
        "    if w != 5 {\n        return best.clone().bool();\n    }\n",
    )
    assert found(guarded.replace("WIDTH", "3")) == []


def test_a_test_caller_does_not_flag_the_helper() -> None:
    """A test that calls the helper with clashing shapes expects the panic: its values do not
    flag code outside tests."""
    body = HELPER.replace("WIDTH", "5") + (
        "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn clash() {\n"
        "        let d = Default::default();\n"
        "        let best = Tensor::<2, Int>::zeros([4, 3], &d);\n"
        "        let _ = hits(best, Tensor::<1, Int>::zeros([4], &d));\n"
        "    }\n}\n"
    )
    assert found(body) == []

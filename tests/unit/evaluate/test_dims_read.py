"""evaluate: a tensor's dims read back by the code (`x.dims()`, `x.shape()`,
`x.shape().dims()`, `x.dims()[i]`, and the names a slice pattern binds from them: `let [batch,
_, width] = x.dims();`) are that tensor's dims: an int where the shape knows it, the same
run-time `Sym` wherever the dim is read, in each caller's frame too."""

from __future__ import annotations

import pytest
from evaluate_helpers import dims_at, value_at

from panic_lens.engine import analyze

HEAD = "use burn::prelude::*;\n"


def _fn(body: str) -> str:
    x = "let x = Tensor::<2>::zeros([3, 4], d);"
    return f"{HEAD}fn f(d: &Device, p: Tensor<3>) {{ {x} {body} }}"


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("let v = /*here*/ x.dims();", [3, 4]),
        ("let v = /*here*/ x.shape();", [3, 4]),
        ("let v = /*here*/ x.shape().dims();", [3, 4]),
        ("let v = /*here*/ x.dims()[1];", 4),
        ("let v = /*here*/ x.dims()[2];", None),  # out of range: no value
        ("let [h, w] = x.dims(); let v = /*here*/ w;", 4),
        ("let [h, _] = x.dims(); let v = /*here*/ h * 2;", 6),
        ("let [.., last] = x.shape().dims(); let v = /*here*/ last;", 4),
        ("let [first, ..] = x.dims(); let v = /*here*/ first;", 3),
        ("let [mut m, _] = x.dims(); let v = /*here*/ m;", None),  # may change
        ("let [a, b, c] = x.dims(); let v = /*here*/ a;", None),  # not x's rank
        ("let [b, t, c] = p.dims(); let v = /*here*/ c;", None),  # run time
        ("let v = /*here*/ p.dims();", None),  # not every dim is known
        ("let s = [3, 5]; let v = /*here*/ s[1];", 5),
        ("let v = /*here*/ [3, 5][i];", None),
    ],
)
def test_the_dims_a_tensor_reads_back(body: str, value: object) -> None:
    assert value_at(_fn(body)) == value


@pytest.mark.parametrize(
    ("body", "dims"),
    [
        ("let y = /*here*/ Tensor::<2>::zeros(x.dims(), d);", (3, 4)),
        ("let y = /*here*/ Tensor::<2>::ones(x.shape(), d);", (3, 4)),
        ("let [h, w] = x.dims(); let y = /*here*/ Tensor::<3>::zeros([w, h, 2], d);", (4, 3, 2)),
        # a run-time dim keeps its identity: the parameter's own `Sym`
        (
            "let [b, t, _] = p.dims(); let y = /*here*/ Tensor::<2>::zeros([b, t], d);",
            ("p.dims[0]", "p.dims[1]"),
        ),
        ("let y = /*here*/ Tensor::<2>::zeros([p.dims()[2], 8], d);", ("p.dims[2]", 8)),
    ],
)
def test_shapes_written_with_a_tensors_dims(body: str, dims: tuple[object, ...]) -> None:
    assert dims_at(_fn(body)) == dims


SPLIT = """
fn split(x: Tensor<3>, n_heads: usize) -> Tensor<4> {
    let [batch_size, seq_len, d_model] = x.dims();
    x.reshape([batch_size, seq_len, n_heads, d_model / n_heads])
}
pub fn heads(device: &Device, x: Tensor<3>) -> Vec<Tensor<4>> {
    let t = Tensor::<3>::zeros([2, 16, 96], device);
    vec![split(t.clone(), 8), split(t, 7), split(x, 5)]
}
"""


def test_a_callers_tensor_gives_the_dims_its_callee_destructures() -> None:
    findings = [f for f in analyze(HEAD + SPLIT, "src/lib.rs").findings
                if f.rule == "reshape-incompatible-shape"]  # fmt: skip
    assert len(findings) == 1
    assert "[2, 16, 7, 13]" in findings[0].message
    assert "split(t, 7)" in findings[0].message  # not the caller with 8, nor the run-time x

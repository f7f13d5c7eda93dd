"""evaluate: `for` loops over literal arrays and small constant ranges are evaluated per
element; a finding names the element. Loops too long, or over run-time values, are not."""

from __future__ import annotations

import pytest

from panic_lens.engine import analyze

HEAD = "use burn::prelude::*;\nfn f(d: &Device, n: usize, xs: Vec<usize>) {\n"
HEAD += "    let t = Tensor::<2>::zeros([4, 8], d);\n"


def findings(body: str) -> list[tuple[int, str]]:
    found = analyze(HEAD + body + "\n}\n", "src/lib.rs").findings
    return [(f.span.start.row + 1, f.message) for f in found if f.rule == "narrow-out-of-range"]


@pytest.mark.parametrize(
    ("body", "label"),
    [
        ("    for k in [2, 4, 9] {\n        t.clone().narrow(1, 0, k);\n    }", "for k = 9"),
        ("    for k in [2, 9].iter() {\n        t.clone().narrow(1, 0, *k);\n    }", "for k = 9"),
        ("    for i in 0..=4 {\n        t.clone().narrow(0, i, 1);\n    }", "for i = 4"),
        ("    for a in [0, 1] {\n        for b in [4, 5] {\n"
         "            t.clone().narrow(0, a, b);\n        }\n    }", "for a = 0, for b = 5"),
        # a tuple's items by place
        ("    for (start, len) in [(0, 4), (4, 4), (6, 4)] {\n"
         "        t.clone().narrow(1, start, len);\n    }", "for (start, len) = (6, 4)"),
        ("    for (_, len) in [(0, 4), (1, 9)] {\n        t.clone().narrow(1, 0, len);\n    }",
         "for (_, len) = (1, 9)"),
        # a closure's `&k` over `.iter()` is the element
        ("    let _v: Vec<_> = [2, 9].iter().map(|&k| t.clone().narrow(1, 0, k)).collect();",
         "map with k = 9"),
        # a closure bound by `let` and passed by name, its one use
        ("    let crop = |k: usize| t.clone().narrow(1, 0, k);\n"
         "    let _v: Vec<_> = [2, 9].into_iter().map(crop).collect();", "map with k = 9"),
    ],
)  # fmt: skip
def test_a_finding_names_the_element(body: str, label: str) -> None:
    (found,) = findings(body)
    assert found[1].endswith(f"({label})")


@pytest.mark.parametrize(
    "body",
    [
        "    for i in 0..4 {\n        t.clone().narrow(0, i, 1);\n    }",  # every element fits
        "    for k in xs {\n        t.clone().narrow(1, 0, k);\n    }",  # run-time values
        # a tuple of another size, a nested pattern: the names stay unknown
        "    for (start, len) in [(0, 4, 1), (6, 4, 1)] {\n"
        "        t.clone().narrow(1, start, len);\n    }",
        "    for ((start, len), _) in [((6, 4), 1)] {\n"
        "        t.clone().narrow(1, start, len);\n    }",
        "    for k in 0..n {\n        t.clone().narrow(1, 0, k);\n    }",
        "    for k in 0..10_000 {\n        t.clone().narrow(1, 0, k);\n    }",  # not unrolled
        "    let mut k = 2;\n    for i in [1, 2] {\n        k += i;\n    }\n"
        "    t.clone().narrow(1, 0, k + 6);",  # assigned in the loop: unknown after it
        "    let mut k = 2;\n    if n > 1 {\n        k = 9;\n    }\n"
        "    t.clone().narrow(1, 0, k);",  # set in one branch only
        # a closure passed by name that is also used elsewhere, or shadowed: not unrolled
        "    let crop = |k: usize| t.clone().narrow(1, 0, k);\n"
        "    let _v: Vec<_> = [2, 9].into_iter().map(crop).collect();\n    let _w = crop(n);",
        "    let crop = |k: usize| t.clone().narrow(1, 0, k);\n    let crop = |k: usize| k;\n"
        "    let _v: Vec<_> = [2, 9].into_iter().map(crop).collect();",
    ],
)
def test_nothing_is_guessed(body: str) -> None:
    assert findings(body) == []


def reshapes(body: str) -> list[int]:
    found = analyze(HEAD + body + "\n}\n", "src/lib.rs").findings
    return [f.span.start.row + 1 for f in found if f.rule == "reshape-incompatible-shape"]


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        # the closure of a `.map` after another `.map`: its parameter is what that one returns
        ("    let _v: Vec<Tensor<3>> = xs.iter()\n"
         "        .map(|_x| Tensor::<2>::zeros([4, 8], d))\n"
         "        .map(|u| u.reshape([1, 4, 9]))\n        .collect();", True),
        ("    xs.iter().map(|_x| t.clone()).for_each(|u| { u.reshape([5, 7]); });", True),
        ("    let _v: Vec<Tensor<3>> = xs.iter()\n"
         "        .map(|_x| Tensor::<2>::zeros([4, 8], d))\n"
         "        .map(|u| u.reshape([1, 4, 8]))\n        .collect();", False),  # it fits
        # look-alikes: the element is not that value, or not known
        ("    let _v: Vec<Tensor<3>> = xs.iter()\n"
         "        .map(|_x| Tensor::<2>::zeros([4, 8], d))\n"
         "        .filter(|_u| true)\n"
         "        .map(|u| u.reshape([1, 4, 9]))\n        .collect();", False),
        ("    let _v: Vec<Tensor<3>> = xs.iter()\n"
         "        .filter_map(|_x| Some(Tensor::<2>::zeros([4, 8], d)))\n"
         "        .map(|u| u.reshape([1, 4, 9]))\n        .collect();", False),
        ("    let _v: Vec<Tensor<3>> = xs.iter()\n"
         "        .map(|x| Tensor::<2>::zeros([*x, 8], d))\n"
         "        .map(|u| u.reshape([1, 4, 9]))\n        .collect();", False),  # dims per item
        ("    let _v: Vec<Tensor<2>> = xs.iter()\n"
         "        .map(|_x| Tensor::<2>::zeros([4, 8], d))\n"
         "        .enumerate().map(|(_i, u)| u)\n        .collect();", False),
    ],
)  # fmt: skip
def test_a_map_after_a_map_runs_over_its_values(body: str, flagged: bool) -> None:
    assert bool(reshapes(body)) is flagged


BLOCKS = """use burn::nn::{LayerNorm, LayerNormConfig};
use burn::prelude::*;
#[derive(Module, Debug)]
pub struct Block<B: Backend> { norm: LayerNorm<B> }
impl<B: Backend> Block<B> {
    pub fn forward(&self, x: Tensor<B, 3>) -> Tensor<B, 3> { x.clone() + self.norm.forward(x) }
    pub fn pool(&self, x: Tensor<B, 3>) -> Tensor<B, 3> { x.narrow(1, 0, 2) }
}
pub fn run<B: Backend>(blocks: Vec<Block<B>>, device: &B::Device, n: usize) -> Tensor<B, 3> {
    let mut x = Tensor::<B, 3>::zeros([2, 10, 64], device);
    BODY
    x.narrow(1, 0, 12)
}
"""


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        # every turn keeps the shape x entered with: it is known after the loop
        ("for block in blocks.iter() {\n        x = block.forward(x);\n    }", True),
        ("for block in &blocks {\n        x = block.forward(x);\n    }", True),
        ("for _ in 0..n {\n        x = x.clone() * 2.0 + 1.0;\n    }", True),
        ("while n > 3 {\n        x = x.exp();\n    }", True),
        # a turn that changes the shape, or a change that is not `x = ..`: unknown after
        ("for block in blocks.iter() {\n        x = block.pool(x);\n    }", False),
        ("for _ in 0..n {\n        x = x.clone().swap_dims(1, 2);\n    }", False),
        ("for _ in 0..n {\n        x = x.exp();\n        x = x.narrow(1, 0, 3);\n    }", False),
        ("for _ in 0..n {\n        x = x.exp();\n        swap(&mut x);\n    }", False),
        ("for _ in 0..n {\n        x = other(x);\n    }", False),  # not followed
    ],
)  # fmt: skip
def test_a_tensor_a_loop_reassigns_keeps_the_shape_every_turn_keeps(
    body: str, flagged: bool
) -> None:
    src = BLOCKS.replace("BODY", body)
    line = src.split("\n").index("    x.narrow(1, 0, 12)") + 1
    found = analyze(src, "src/lib.rs").findings
    rows = [f.span.start.row + 1 for f in found if f.rule == "narrow-out-of-range"]
    assert (line in rows) == flagged

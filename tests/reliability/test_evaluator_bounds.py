"""The evaluator answers in bounded time whatever the code: deeply nested expressions, literal
loops of 10,000 iterations, mutually recursive helpers, modules whose glob imports read each
other and a 50,000-line function are analysed within a budget, and the panicking call after
each is still found (the file was analysed, not given up on). The bounds (evaluate/state.py,
loops.py, calls.py): an expression deeper than 48 levels is unknown; one question takes at most
20,000 evaluation steps; a loop of more than 64 elements is not unrolled; calls are followed 4
deep and never into a function already on the way; at most 8 callers of a function (or a
closure) give it frames, and at most 64 of its calls are read for them; answers are memoised
per file and frame; a name of a scope is looked up once per lookup."""

from __future__ import annotations

import time

import pytest

from panic_lens.engine import analyze

HEAD = "use burn::prelude::*;\n"
BAD = "    Tensor::<2>::zeros([4, 8], d).narrow(1, 6, 4);\n"  # panics: 6 + 4 > 8
BUDGET_SECONDS = 20.0  # each case analyses in a few seconds on a loaded machine


def lines(n: int, line: str) -> str:
    return "".join(line.format(i=i, j=i + 1) for i in range(n))


CASES = {
    "nested arithmetic": "fn f(d: &Device) {\n    let x = " + "(" * 2000 + "1" + " + 1)" * 2000
    + ";\n    Tensor::<2>::zeros([4, 8], d).narrow(1, x, 4);\n" + BAD + "}\n",
    "nested method chain": "fn f(d: &Device) {\n    let t = Tensor::<2>::zeros([4, 8], d)"
    + ".clone()" * 3000 + ";\n    t.narrow(1, 6, 4);\n" + BAD + "}\n",
    "10,000-iteration range loop": "fn f(d: &Device) {\n    for k in 0..10_000 {\n"
    "        Tensor::<2>::zeros([4, 8], d).narrow(1, 0, k);\n    }\n" + BAD + "}\n",
    "10,000-element literal loop": "fn f(d: &Device) {\n    for k in ["
    + ", ".join(str(i) for i in range(10_000)) + "] {\n"
    "        Tensor::<2>::zeros([4, 8], d).narrow(1, 0, k);\n    }\n" + BAD + "}\n",
    "mutually recursive helpers": lines(
        200, "fn h{i}(n: usize) -> usize {{ if n > 0 {{ h{j}(n - 1) }} else {{ h0(n) }} }}\n"
    ) + "fn h200(n: usize) -> usize { h0(n) }\n"
    "fn f(d: &Device) {\n" + lines(
        200, "    Tensor::<2>::zeros([4, 8], d).narrow(1, h{i}(3), 4);\n"
    ) + BAD + "}\n",
    "glob imports reading each other": "".join(
        f"mod m{i} {{\n"  # each module's globs name the others through the last one
        + "".join(f"    pub use m{k}::*;\n" for k in range(12) if k != i)
        + "    pub use super::*;\n}\n"
        for i in range(12)
    ) + "".join(f"use m{i}::*;\n" for i in range(12))
    + "fn f(d: &Device) {\n    Tensor::<2>::zeros([4, 8], d).narrow(1, UNKNOWN, 4);\n"
    + BAD + "}\n",
    "10,000 callers of a helper": "fn crop(x: Tensor<2>, n: usize) -> Tensor<2> {\n"
    "    x.narrow(1, 0, n)\n}\n"
    "fn f(d: &Device, m: usize) {\n    let t = Tensor::<2>::zeros([4, 8], d);\n"
    + lines(10_000, "    crop(t.clone(), m + {i});\n") + BAD + "}\n",
    "a closure called 10,000 times": "fn f(d: &Device, m: usize) {\n"
    "    let t = Tensor::<2>::zeros([4, 8], d);\n"
    "    let crop = |x: Tensor<2>, n: usize| x.narrow(1, 0, n);\n"
    + lines(10_000, "    crop(t.clone(), m + {i});\n") + BAD + "}\n",
    "a 10,000-arm match": "fn f(d: &Device, m: usize) {\n"
    "    let t = Tensor::<2>::zeros([4, 8], d);\n    let u = match m {\n"
    + lines(10_000, "        {i} => t.clone().exp(),\n") + "        _ => t.clone(),\n    };\n"
    "    u.narrow(1, m, 4);\n" + BAD + "}\n",
    "50,000-line function": "fn f(d: &Device) {\n    let a0 = 1;\n"
    + lines(50_000, "    let a{j} = a{i} + 1;\n")
    + "    Tensor::<2>::zeros([4, 8], d).narrow(1, a50000, 4);\n" + BAD + "}\n",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_code_is_analysed_in_bounded_time(name: str) -> None:
    src = HEAD + CASES[name]
    started = time.perf_counter()
    found = analyze(src, "src/lib.rs")
    seconds = time.perf_counter() - started
    rows = [f.span.start.row for f in found.findings if f.rule == "narrow-out-of-range"]
    bad_row = src[: src.rindex(BAD)].count("\n")
    assert bad_row in rows, name
    assert seconds < BUDGET_SECONDS, (name, seconds)

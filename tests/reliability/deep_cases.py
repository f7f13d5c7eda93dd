"""10,000-deep Rust sources, and a worker that analyses one of them and prints a JSON summary.

Run as `python deep_cases.py NAME`: the test runs each case in its own process, so a hang is a
timeout and a C-level crash is an exit code, never a stuck or dead test session.
"""

from __future__ import annotations

import json
import sys
import time

DEPTH = 10_000
CALL = "ctc_loss(log_probs, targets, lens.clone(), lens, 0)"
HEAD = "use burn::prelude::*;\nuse burn::tensor::module::ctc_loss;\n"
BODY = """pub fn loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([2, 4096], device);
    let lens = Tensor::<1, Int>::full([2], 9000, device);
    %s
}
"""


def wrapped(open_: str, close: str = "") -> str:
    """The risky call `DEPTH` levels inside `open_ ... close` pairs."""
    return HEAD + BODY % (open_ * DEPTH + CALL + close * DEPTH)


CASES: dict[str, str] = {
    "parentheses": wrapped("(", ")"),
    "call-arguments": wrapped("f(", ")"),
    "blocks": wrapped("{ ", " }"),
    "unsafe-blocks": wrapped("unsafe { ", " }"),
    "arrays": wrapped("[", "]"),
    "tuples": wrapped("(0, ", ")"),
    "closures": wrapped("|x| "),
    "references": wrapped("&"),
    "negations": wrapped("!"),
    "if-else-chain": wrapped("if c { 0 } else { ", " }"),
    "match-arms": wrapped("match x { _ => ", " }"),
    "method-chain": HEAD + BODY % (CALL + ".clone()" * DEPTH),
    "binary-chain": HEAD + BODY % (CALL + " + x" * DEPTH),
    "field-chain": HEAD + BODY % ("let _ = a" + ".b" * DEPTH + ";\n    " + CALL),
    "nested-mods": "mod m { " * DEPTH + HEAD + BODY % CALL + " }" * DEPTH,
    "nested-use-tree": "use a::{" * DEPTH + "b" + "}" * DEPTH + ";\n" + HEAD + BODY % CALL,
    "nested-generics": "type T = " + "Vec<" * DEPTH + "u8" + ">" * DEPTH + ";\n" + wrapped(""),
    "nested-fns": "fn f() { " * DEPTH + "}" * DEPTH + "\n" + HEAD + BODY % CALL,
    "unclosed-delimiters": HEAD + BODY % CALL + "fn g() { " + "(" * DEPTH + "[" * DEPTH,
    "let-chain": HEAD + BODY % ("".join(f"let a{i + 1} = a{i}; " for i in range(DEPTH)) + CALL),
}


def main(name: str) -> None:
    from panic_lens.engine import analyze

    src = CASES[name]
    started = time.perf_counter()
    result = analyze(src, None)
    seconds = time.perf_counter() - started
    rows = sorted({(f.rule, f.span.start.row) for f in result.findings})
    call_row = src[: src.index(CALL)].count("\n")
    summary = {"seconds": seconds, "findings": rows, "call_row": call_row, "notes": result.notes}
    print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1])

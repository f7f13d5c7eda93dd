"""Data for the `explain` benchmark: N synthetic records (JSONL) and a noisy log of a given size.

The records look like the real ones (panic messages with `{}` holes, regex patterns); the log is
`cargo test` output that shares their vocabulary, with one line that a record explains.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = [
    "tensor",
    "shape",
    "device",
    "kernel",
    "buffer",
    "stride",
    "launch",
    "capacity",
    "dtype",
    "batch",
    "record",
    "policy",
    "channel",
    "client",
    "backend",
    "grad",
    "autodiff",
    "fusion",
    "stream",
    "queue",
    "handle",
    "layout",
    "index",
    "module",
]
CRATES = ("burn-cubecl", "burn-fusion", "burn-tensor", "burn-router", "cubecl-runtime")


def write_records(path: Path, count: int, seed: int = 10) -> str:
    """Write `count` records; returns a panic line that exactly one of them explains."""
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        a, b, c, d = rng.sample(WORDS, 4)
        name = f"{a}_{b}_{i}"
        record = {
            "id": f"bench{i:05d}",
            "schemaVersion": 2,
            "errorMessage": f"{name}: {c} {d} = {{}} does not fit the {a} limit ({{}}).",
            "messagePattern": rf"{name}: {c} {d} = (.+?) does not fit the {a} limit \((.+?)\)\.",
            "filePath": f"crates/{rng.choice(CRATES)}/src/{b}.rs",
            "solutions": [f"keep the {c} under the {a} limit"],
        }
        lines.append(json.dumps({"record": record, "datasetVersion": "2026-01-01T00:00:00Z"}))
        if i == count // 2:
            where = f"thread 'main' panicked at src/{b}.rs:7:5:"
            panic = f"{where}\n{name}: {c} {d} = 9 does not fit the {a} limit (4)."
    path.write_text("\n".join(lines) + "\n")
    return panic


def write_log(path: Path, size: int, panic: str, seed: int = 10) -> None:
    """About `size` bytes of test output, compiler lines and debug prints around `panic`."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        kind = rng.random()
        if kind < 0.4:
            line = (
                f"test {rng.choice(WORDS)}::tests::{rng.choice(WORDS)}_{rng.randint(0, 999)} ... ok"
            )
        elif kind < 0.6:
            line = f"   Compiling {rng.choice(CRATES)} v0.22.{rng.randint(0, 9)}"
        else:
            words = " ".join(rng.choices(WORDS, k=rng.randint(4, 14)))
            line = f"[{rng.randint(0, 10**6)}] DEBUG {words} = {rng.random():.6f}"
        lines.append(line)
        total += len(line) + 1
    lines.insert(rng.randrange(len(lines)), panic)
    path.write_text("\n".join(lines) + "\n")

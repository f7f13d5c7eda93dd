"""The naive baseline: one regular expression per rule over every .rs file, no parsing.

`python -m bench.regex_scan PATH...` prints `path:line: rule` per match and a count on stderr.
It is what a grep-based CI check would do: fast, and blind to types, constants and scopes.
"""

from __future__ import annotations

import os
import re
import sys

PATTERNS = {
    "ctc-target-capacity": re.compile(rb"\bctc_loss\s*\("),
    "async-policy-load-record": re.compile(rb"\.load_record\s*\("),
    "router-unsupported-dtype": re.compile(rb"\bchange_client_backend\s*\("),
    "interpolate-backward-mode": re.compile(
        rb"InterpolateMode::(?:Bilinear|Bicubic|Linear|Cubic|Lanczos3?)\b"
    ),
}


def rust_files(roots: list[str]) -> list[str]:
    out = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "target"]
            out.extend(os.path.join(dirpath, f) for f in filenames if f.endswith(".rs"))
    return sorted(out)


def scan(path: str) -> list[tuple[int, str]]:
    with open(path, "rb") as fh:
        data = fh.read()
    hits = []
    for rule, pattern in PATTERNS.items():
        for match in pattern.finditer(data):
            hits.append((data.count(b"\n", 0, match.start()) + 1, rule))
    return sorted(hits)


def main(argv: list[str] | None = None) -> int:
    roots = (argv if argv is not None else sys.argv[1:]) or ["."]
    total = 0
    out = sys.stdout
    for path in rust_files(roots):
        for line, rule in scan(path):
            out.write(f"{path}:{line}: {rule}\n")
            total += 1
    print(f"{total} matches", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Precision on real burn code: `panic-lens check` over trees nobody annotated.

`python -m bench.precision TREE...` runs `panic-lens check --format json --fail-on never` on each
tree (a burn checkout, tracel-ai/models, public projects built on burn) in a subprocess with the
same interpreter and environment (set PYTHONPATH to the code to measure), with the cache off so
the figures are this code's, and prints a Markdown table: files, findings by severity, then every
finding at warning or above (rule, file:line, message) to be read by hand. Nothing in these trees
is annotated: a warning+ finding is either a true panic or a false positive, which only reading
the code can tell. A dev script: the trees are not in the repository, so no test runs it.
`--json FILE` also writes the raw results; `--records FILE` loads more records (repeatable).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from panic_lens.walk import iter_rust_files

SEVERITIES = ("error", "warning", "information", "hint")
LOUD = {"error", "warning"}


@dataclass(frozen=True)
class TreeResult:
    tree: Path
    files: int
    findings: tuple[dict[str, object], ...]
    errors: tuple[dict[str, object], ...]
    seconds: float

    def by_severity(self) -> Counter[str]:
        return Counter(str(f["severity"]) for f in self.findings)

    def loud(self) -> list[dict[str, object]]:
        return [f for f in self.findings if f["severity"] in LOUD]


def check_tree(tree: Path, records: list[Path] = ()) -> TreeResult:  # type: ignore[assignment]
    """One `check` run (with the shipped records and `records`); exit codes 0/1 are results,
    anything else (a crash) is an error."""
    env = {**os.environ, "PANIC_LENS_NO_CACHE": "1"}
    cmd = [sys.executable, "-m", "panic_lens", "check", str(tree), "--format", "json"]
    cmd += ["--fail-on", "never"]
    for extra in records:
        cmd += ["--records", str(extra)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"panic-lens check {tree} exited {proc.returncode}:\n{proc.stderr}")
    report = json.loads(proc.stdout)
    files = sum(1 for _ in iter_rust_files([tree]))
    return TreeResult(tree, files, tuple(report["findings"]), tuple(report["errors"]), seconds)


def _where(finding: dict[str, object], tree: Path) -> str:
    path = Path(str(finding["path"]))
    rel = path.relative_to(tree) if path.is_relative_to(tree) else path
    return f"{rel}:{finding['line']}"


def table(results: list[TreeResult]) -> str:
    head = "| tree | files | " + " | ".join(SEVERITIES) + " | errors | seconds |"
    lines = [head, "|---" * (len(SEVERITIES) + 4) + "|"]
    for r in results:
        counts = r.by_severity()
        cells = " | ".join(str(counts.get(s, 0)) for s in SEVERITIES)
        lines.append(f"| {r.tree.name} | {r.files} | {cells} | {len(r.errors)} | {r.seconds:.1f} |")
    for r in results:
        loud = r.loud()
        if not loud:
            continue
        lines += ["", f"{r.tree.name}: findings at warning or above", ""]
        lines += ["| rule | severity | where | message |", "|---|---|---|---|"]
        for f in sorted(loud, key=lambda f: (str(f["path"]), int(str(f["line"])))):
            message = str(f["message"]).replace("|", "\\|")
            lines.append(f"| {f['rule']} | {f['severity']} | {_where(f, r.tree)} | {message} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.precision", description=__doc__)
    parser.add_argument("trees", nargs="+", type=Path, help="folders to check")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument(
        "--records", type=Path, action="append", default=[],
        help="more records to load (`python -m bench.every_site` writes one per burn panic)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    missing = [t for t in args.trees if not t.is_dir()]
    if missing:
        parser.error(f"not a folder: {', '.join(map(str, missing))}")
    results = [check_tree(t.resolve(), args.records) for t in args.trees]
    print(table(results))
    if args.json:
        raw = [
            {"tree": str(r.tree), "files": r.files, "findings": r.findings, "errors": r.errors}
            for r in results
        ]
        args.json.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Golden fixtures: each folder here is a tiny crate whose `.rs` files mark expected findings.

A marker `//~^ <rule-id> <severity>` (one `^` per line up) or a trailing `//~ <rule-id>
<severity>` declares a finding on that line; the engine's findings must equal the markers
exactly, as a set of (file, line, rule, severity). A case folder holding a file named
`NO_MANIFEST` (and no Cargo.toml) is copied to a temporary folder first, so no Cargo.toml
above it is found: that is how "no manifest" cases are represented. The rules are those of
`check`: the shipped ones and the rules derived from the shipped records (registered for the
test, whatever other tests registered before it).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


HERE = Path(__file__).parent
MARKER = re.compile(r"//~(\^*)\s+([a-z0-9-]+)\s+(error|warning|information|hint)\b")
Expected = set[tuple[str, int, str, str]]


def case_dirs() -> list[Path]:
    return sorted(p for p in HERE.iterdir() if p.is_dir() and any(p.rglob("*.rs")))


def markers(root: Path) -> Expected:
    """(relative file, 1-based line, rule, severity) for every marker under `root`."""
    found: Expected = set()
    for file in sorted(root.rglob("*.rs")):
        rel = file.relative_to(root).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            for match in MARKER.finditer(line):
                carets, rule, severity = match.groups()
                found.add((rel, number - len(carets), rule, severity))
    return found


def engine_findings(root: Path, check_like_cli: Callable[[Path], Any]) -> Expected:
    result = check_like_cli(root)
    return {
        (Path(f.path or "").relative_to(root).as_posix(), f.span.start.row + 1, f.rule,
         f.severity.value)
        for f in result.findings
    }  # fmt: skip


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_golden_case(
    case: Path, tmp_path: Path, check_like_cli: Callable[[Path], Any]
) -> None:
    root = case
    if (case / "NO_MANIFEST").exists():
        assert not (case / "Cargo.toml").exists(), "a NO_MANIFEST case must not have Cargo.toml"
        root = tmp_path / case.name
        shutil.copytree(case, root)
    expected, got = markers(root), engine_findings(root, check_like_cli)
    assert sorted(got - expected) == [], "findings without a marker"
    assert sorted(expected - got) == [], "markers the engine did not find"

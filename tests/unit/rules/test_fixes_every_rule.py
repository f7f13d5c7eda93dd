"""Every fix any rule offers on its examples (the shipped rules' `<id>.rs`, the corpus of burn
panics and the golden crates) removes its finding and keeps the file parseable."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from panic_lens.engine import analyze
from panic_lens.fixing import syntax_errors
from panic_lens.model import Edit, Finding, Fix
from panic_lens.rules.meta import SHIPPED
from panic_lens.rust.edits import apply_edits

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted(
    [
        *(ROOT / "server" / "panic_lens" / "rules" / "defs").glob("*.rs"),
        *(ROOT / "tests" / "corpus" / "panics").glob("*/*.rs"),
        *(ROOT / "tests" / "golden").rglob("*.rs"),
    ]
)


@cache
def findings_of(path: Path) -> tuple[Finding, ...]:
    return analyze(path.read_bytes(), path).findings


def offered(path: Path) -> list[tuple[Finding, Fix]]:
    return [(f, fix) for f in findings_of(path) for fix in f.fixes]


def moved(offset: int, edits: tuple[Edit, ...]) -> int:
    """Where byte `offset` of the text is once `edits` (none containing it) are applied."""
    shift = sum(
        len(e.new_text.encode()) - (e.span.end_byte - e.span.start_byte)
        for e in edits
        if e.span.end_byte <= offset
    )
    return offset + shift


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_fix_removes_its_finding_and_parses(path: Path) -> None:
    src = path.read_bytes()
    before = syntax_errors(src)
    for finding, fix in offered(path):
        fixed = apply_edits(src, fix.edits)
        where = f"{path.name}:{finding.span.start.row + 1} {fix.id}"
        assert syntax_errors(fixed) <= before, f"{where}: the fix adds a syntax error"
        after = [f for f in analyze(fixed, path).findings if f.rule == finding.rule]
        assert len(after) < sum(1 for f in findings_of(path) if f.rule == finding.rule), where
        inside = [e for e in fix.edits if e.span.start_byte <= finding.span.start_byte
                  < e.span.end_byte]  # fmt: skip
        if not inside:  # the flagged call is still there, at its new place: not flagged
            at = moved(finding.span.start_byte, fix.edits)
            assert all(f.span.start_byte != at for f in after), f"{where}: still flagged"


def test_every_rule_with_a_fix_offers_it_on_its_examples() -> None:
    """A rule file's `[[fix]]` that no example exercises would go unchecked above."""
    with_fixes = {r.id for r in SHIPPED if r.spec is not None and r.spec.fixes}
    with_fixes |= {"async-policy-load-record", "interpolate-backward-mode"}  # the hooks' fixes
    exercised = {finding.rule for path in EXAMPLES for finding, _ in offered(path)}
    assert with_fixes - exercised == set()

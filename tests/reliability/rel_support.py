"""Shared helpers for the reliability tests: golden sources, span checks, incremental parses.

A span is "inside the document" when its bytes lie in the source and its row/column ends are
exactly what those bytes give (rows split on LF, as tree-sitter counts them).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, settings

from panic_lens.model import Analysis, Point, Span
from panic_lens.rust.syntax import Tree, parse_code

TESTS = Path(__file__).resolve().parent.parent
GOLDEN = TESTS / "golden"

# Explicit bounds for every property test here: a fixed count and a generous per-example
# deadline that still catches a hang (a normal example takes well under 100 ms).
BOUNDED = settings(
    max_examples=60,
    deadline=10_000,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def golden_files() -> list[Path]:
    """Every `.rs` file of the golden fixtures, sorted (the corpus edits start from)."""
    return sorted(GOLDEN.rglob("*.rs"))


def point_at(src: bytes, offset: int) -> Point:
    """The tree-sitter point of a byte offset: LF-separated rows, byte columns."""
    row = src.count(b"\n", 0, offset)
    return Point(row, offset - (src.rfind(b"\n", 0, offset) + 1))


def span_problem(span: Span, src: bytes) -> str | None:
    """Why `span` does not lie inside `src` (None when it does)."""
    if not 0 <= span.start_byte <= span.end_byte <= len(src):
        return f"bytes {span.start_byte}..{span.end_byte} outside 0..{len(src)}"
    if span.start != point_at(src, span.start_byte):
        return f"start {span.start} != {point_at(src, span.start_byte)}"
    if span.end != point_at(src, span.end_byte):
        return f"end {span.end} != {point_at(src, span.end_byte)}"
    return None


def range_problems(analysis: Analysis, src: bytes, path: str | None) -> list[str]:
    """Every span of findings, same-file evidence, fix edits and hovers checked against `src`."""
    spans: list[tuple[str, Span]] = []
    for f in analysis.findings:
        spans.append((f"{f.rule} span", f.span))
        spans += [(f"{f.rule} evidence", r.span) for r in f.evidence if r.path in (None, path)]
        spans += [(f"{f.rule} fix {x.id}", e.span) for x in f.fixes for e in x.edits]
    spans += [(f"{h.rule} hover", h.span) for h in analysis.hovers]
    out = []
    for what, span in spans:
        problem = span_problem(span, src)
        if problem is not None:
            out.append(f"{what}: {problem}")
    return out


def reparse_after_edit(tree: Tree, old: bytes, start: int, old_end: int, new: bytes) -> Tree:
    """The incremental re-parse the server does: `tree` (`parse_code` of `old`), edited into
    `new`, re-parsed by `parse_code` (from the edited tree when the code views allow)."""
    new_end = start + (len(new) - len(old)) + (old_end - start)
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_tuple(point_at(old, start)),
        old_end_point=_tuple(point_at(old, old_end)),
        new_end_point=_tuple(point_at(new, new_end)),
    )
    return parse_code(new, old=(tree, old, [(start, old_end, new_end - start)]))


def same_tree(a: Tree, b: Tree) -> bool:
    """The two trees have the same nodes (kind, byte range, missing or not) in the same order."""

    def nodes(tree: Tree) -> list[tuple[str, int, int, bool]]:
        out, stack = [], [tree.root_node]
        while stack:
            node = stack.pop()
            out.append((node.type, node.start_byte, node.end_byte, node.is_missing))
            stack.extend(reversed(node.children))
        return out

    return nodes(a) == nodes(b)


def _tuple(point: Point) -> tuple[int, int]:
    return (point.row, point.col)

"""Applying the rules' fixes to files on disk: what `check --fix` and `check --diff` do.

Which fixes: a fix is *safe* when it keeps what the program computes (`Fix.safe`: not
`behavior_change`: loading a record on the inner policy is what the wrapped call meant); any
fix that picks a value the author did not write (a group count, a probability, an
interpolation mode) changes behaviour and is *unsafe*, applied only with `unsafe=True`. One fix
per finding: its preferred one, else the first allowed.

How: each file is analysed again from the bytes read now (the findings' spans are for those
bytes), the chosen fixes that do not overlap are applied together, and the result is parsed:
a fix that adds a syntax error is dropped. The new text is analysed again and the rounds go on
(fixes skipped for overlapping, or exposed by an edit) up to `MAX_ROUNDS`, or until a text
repeats. `write_plan` writes atomically (a temporary file in the same folder, then
`os.replace`) and only when the file still has the bytes the plan started from.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from panic_lens.engine import analyze
from panic_lens.model import Edit, Finding, Fix, Settings
from panic_lens.rust.edits import apply_edits
from panic_lens.rust.syntax import parse, walk

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog

MAX_ROUNDS = 4
CHANGED_ON_DISK = "changed on disk since it was checked; not written"


def chosen_fix(finding: Finding, unsafe: bool) -> Fix | None:
    """The fix `--fix` applies for `finding`: the preferred one first, safe ones only unless
    `unsafe`."""
    allowed = [f for f in finding.fixes if f.edits and (unsafe or f.safe)]
    return next((f for f in allowed if f.preferred), allowed[0] if allowed else None)


@dataclass(frozen=True, slots=True)
class AppliedFix:
    """One fix applied: the finding's rule, where it was (1-based, in the text it was applied
    to) and the fix."""

    rule: str
    line: int
    column: int
    fix: Fix


@dataclass(frozen=True, slots=True)
class FilePlan:
    """What fixing one file gives: the bytes it had, their digest and the fixed bytes."""

    path: str
    original: bytes
    fixed: bytes
    applied: tuple[AppliedFix, ...]

    @property
    def digest(self) -> str:
        return digest(self.original)

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plan_file(
    path: str,
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
    unsafe: bool = False,
    data: bytes | None = None,
) -> FilePlan:
    """The fixes of one file, applied in memory (reads `path` unless `data` is given)."""
    original = data if data is not None else _read(path)
    current, applied, seen = original, [], {digest(original)}
    for _ in range(MAX_ROUNDS):
        findings = analyze(current, path, settings=settings, catalog=catalog).findings
        candidates = _candidates(findings, unsafe)
        if not candidates:
            break
        fixed, took = apply_fixes(current, candidates)
        if not took or digest(fixed) in seen:
            break
        seen.add(digest(fixed))
        applied += [_applied(f, fix, current) for f, fix in took]
        current = fixed
    return FilePlan(path, original, current, tuple(applied))


def _candidates(findings: Iterable[Finding], unsafe: bool) -> list[tuple[Finding, Fix]]:
    out: list[tuple[Finding, Fix]] = []
    edits_seen: set[tuple[Edit, ...]] = set()
    for finding in findings:
        fix = chosen_fix(finding, unsafe)
        if fix is not None and fix.edits not in edits_seen:  # two findings, one edit
            edits_seen.add(fix.edits)
            out.append((finding, fix))
    return out


def apply_fixes(
    src: bytes, candidates: Sequence[tuple[Finding, Fix]]
) -> tuple[bytes, list[tuple[Finding, Fix]]]:
    """`src` with the candidates that overlap no earlier one applied, less any that adds a
    syntax error; and those applied."""
    took: list[tuple[Finding, Fix]] = []
    taken: list[tuple[int, int]] = []
    for finding, fix in sorted(candidates, key=lambda c: _first_byte(c[1])):
        ranges = [(e.span.start_byte, e.span.end_byte) for e in fix.edits]
        if not any(_overlap(r, t) for r in ranges for t in taken) and _disjoint(ranges):
            took.append((finding, fix))
            taken += ranges
    baseline = syntax_errors(src)
    fixed = apply_edits(src, [e for _, fix in took for e in fix.edits])
    if syntax_errors(fixed) <= baseline:
        return fixed, took
    # one of them breaks the parse: keep those that do not, alone (the next round re-checks)
    alone = [c for c in took if syntax_errors(apply_edits(src, c[1].edits)) <= baseline]
    if not alone:
        return src, []
    return apply_edits(src, alone[0][1].edits), alone[:1]


def _first_byte(fix: Fix) -> int:
    return min(e.span.start_byte for e in fix.edits)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Half-open ranges that share a byte, or two insertions at one point (order unknown)."""
    return (a[0] < b[1] and b[0] < a[1]) or a == b or (a[0] == a[1] and b[0] < a[0] < b[1])


def _disjoint(ranges: list[tuple[int, int]]) -> bool:
    return not any(_overlap(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :])


def syntax_errors(src: bytes) -> int:
    """tree-sitter's ERROR and MISSING nodes in `src`."""
    return sum(1 for node in walk(parse(src).root_node) if node.is_error or node.is_missing)


def _applied(finding: Finding, fix: Fix, src: bytes) -> AppliedFix:
    start = finding.span.start
    line_start = finding.span.start_byte - start.col
    column = len(src[line_start : finding.span.start_byte].decode("utf-8", errors="replace"))
    return AppliedFix(finding.rule, start.row + 1, column + 1, fix)


def write_plan(plan: FilePlan) -> str | None:
    """Write the fixed bytes over the file, atomically, unless it no longer holds the bytes
    the plan was made from; None when written, else why not."""
    target = os.path.realpath(plan.path)  # a symlink keeps pointing at the fixed file
    try:
        if digest(_read(target)) != plan.digest:
            return CHANGED_ON_DISK
        mode = stat.S_IMODE(os.stat(target).st_mode)
        handle, temp = tempfile.mkstemp(
            dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.", suffix=".tmp"
        )
    except OSError as exc:
        return f"not written: {exc.strerror or exc}"
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(plan.fixed)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return f"not written: {exc.strerror or exc}"
    return None


def unified_diff(plan: FilePlan, name: str | None = None) -> str:
    """The plan's edits as a unified diff (`a/<name>`, `b/<name>`)."""
    shown = (name or plan.path).lstrip("/")  # `a/tmp/x.rs`, as git prints an absolute path
    before = plan.original.decode("utf-8", errors="replace").splitlines(keepends=True)
    after = plan.fixed.decode("utf-8", errors="replace").splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{shown}", f"b/{shown}")
    return "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
                   for line in lines)  # fmt: skip


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()

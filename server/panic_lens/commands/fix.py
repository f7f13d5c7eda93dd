"""`check --fix`, `--unsafe-fixes` and `--diff`: plan the fixes of the files a check flagged,
then write them (or print them as a unified diff), and say what changed.

The planning and writing are `panic_lens.fixing`'s; this module picks the files, collects
the lines the report prints and the errors (a file that changed on disk before the write).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from panic_lens.fixing import FilePlan, chosen_fix, plan_file, unified_diff, write_plan
from panic_lens.model import Finding, Settings
from panic_lens.report.sources import display_path
from panic_lens.report.text import behaviour_note
from panic_lens.walk import PathError

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog


@dataclass(slots=True)
class FixOutcome:
    """What a `--fix` or `--diff` run did: report lines, the diff, errors, counts."""

    lines: list[str] = field(default_factory=list)
    diff: str = ""
    errors: list[PathError] = field(default_factory=list)
    fixed: int = 0  # findings fixed (or that would be, for --diff)
    files: int = 0  # files written (or that would be)
    wrote: bool = True  # False: --diff


def fixable_paths(findings: Sequence[Finding], unsafe: bool) -> list[str]:
    """The files with a finding `--fix` has a fix for, in order."""
    paths = {f.path for f in findings if f.path and chosen_fix(f, unsafe) is not None}
    return sorted(p for p in paths if p is not None)


def run_fixes(
    findings: Sequence[Finding],
    *,
    settings: Settings,
    catalog: Catalog | None,
    unsafe: bool,
    write: bool,
) -> FixOutcome:
    """Plan every fixable file; write the changed ones when `write`, else diff them."""
    outcome = FixOutcome(wrote=write)
    for path in fixable_paths(findings, unsafe):
        try:
            plan = plan_file(path, settings=settings, catalog=catalog, unsafe=unsafe)
        except OSError as exc:
            outcome.errors.append(PathError(path, exc.strerror or str(exc)))
            continue
        if not plan.changed:
            continue
        if not write:
            outcome.diff += unified_diff(plan, display_path(path))
            _count(outcome, plan, "would fix")
            continue
        problem = write_plan(plan)
        if problem is not None:
            outcome.errors.append(PathError(path, problem))
            continue
        _count(outcome, plan, "fixed")
    return outcome


def _count(outcome: FixOutcome, plan: FilePlan, verb: str) -> None:
    outcome.files += 1
    outcome.fixed += len(plan.applied)
    for done in plan.applied:
        where = f"{display_path(plan.path)}:{done.line}:{done.column}"
        note = behaviour_note(done.fix)
        outcome.lines.append(f"{verb}: {where}: [{done.rule}] {done.fix.title}{note}")


def summary(outcome: FixOutcome) -> str:
    verb = "fixed" if outcome.wrote else "would fix"
    findings = f"{outcome.fixed} finding{'s' if outcome.fixed != 1 else ''}"
    files = f"{outcome.files} file{'s' if outcome.files != 1 else ''}"
    return f"panic-lens: {verb} {findings} in {files}"


def fixable_note(findings: Sequence[Finding]) -> str | None:
    """`N fixable with --fix (M more with --unsafe-fixes)`, or None when nothing is."""
    safe = sum(1 for f in findings if chosen_fix(f, False) is not None)
    unsafe = sum(1 for f in findings if chosen_fix(f, True) is not None) - safe
    if not safe and not unsafe:
        return None
    parts = [f"{safe} fixable with --fix"] if safe else []
    if unsafe:
        parts.append(f"{unsafe} {'more ' if safe else ''}with --fix --unsafe-fixes")
    return f"panic-lens: {', '.join(parts)} (--diff shows the edits)"

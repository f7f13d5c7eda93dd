"""The text report, rustc-like: `path:line:col: error[rule-id] message`, the line, a caret.

Sorted by path, position and rule. Evidence, bound records and available fixes follow as
`= note:` lines so a terminal reader sees why, without opening an editor.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from panic_lens.model import Finding, Fix, Related, Severity
from panic_lens.positions import byte_col_to
from panic_lens.report.sources import Sources, display_path

TAB = "    "


def sort_key(finding: Finding, sources: Sources) -> tuple[str, int, int, str]:
    region = sources.region(finding.path, finding.span)
    return (display_path(finding.path), region.line, region.column, finding.rule)


def render_text(findings: Sequence[Finding], sources: Sources, files: int | None = None) -> str:
    """All findings, then a one-line summary."""
    ordered = sorted(findings, key=lambda f: sort_key(f, sources))
    blocks = [render_finding(f, sources) for f in ordered]
    return "".join(f"{b}\n" for b in blocks) + summary(ordered, files) + "\n"


def render_finding(finding: Finding, sources: Sources) -> str:
    region = sources.region(finding.path, finding.span)
    head = (
        f"{display_path(finding.path)}:{region.line}:{region.column}: "
        f"{finding.severity.value}[{finding.rule}] {finding.message}"
    )
    notes = [f"note: {_evidence(e, finding, sources)}" for e in finding.evidence]
    if finding.records:
        notes.append(f"records: {', '.join(finding.records)}")
    for fix in finding.fixes:
        change = behaviour_note(fix)
        notes.append(f"help: fix available: {fix.title}{change}")
    pad = " " * _gutter(region.line)
    lines = [head, *_snippet(finding, sources, region.line), *(f"{pad} = {n}" for n in notes)]
    return "\n".join(lines)


def summary(findings: Sequence[Finding], files: int | None = None) -> str:
    counts = {s: sum(1 for f in findings if f.severity is s) for s in Severity}
    parts = [f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    where = f" in {files} file{'s' if files != 1 else ''}" if files is not None else ""
    if not findings:
        return f"panic-lens: no findings{where}"
    total = len(findings)
    return f"panic-lens: {total} finding{'s' if total != 1 else ''} ({', '.join(parts)}){where}"


def behaviour_note(fix: Fix) -> str:
    """` (changes behaviour)` for such fixes, unless the title already says so."""
    if fix.behavior_change and "change" not in fix.title.lower():
        return " (changes behaviour)"
    return ""


def _snippet(finding: Finding, sources: Sources, line_no: int) -> list[str]:
    raw = sources.line(finding.path, finding.span.start.row)
    if raw is None:
        return []
    start = byte_col_to(raw, finding.span.start.col, "utf-32")
    if finding.span.end.row == finding.span.start.row:
        end = byte_col_to(raw, finding.span.end.col, "utf-32")
    else:
        end = len(raw.decode("utf-8", errors="replace"))
    text = raw.decode("utf-8", errors="replace")
    pad = " " * _gutter(line_no)
    shown = text.replace("\t", TAB)
    caret = " " * _width(text[:start]) + "^" * max(1, _width(text[start:end]))
    return [f"{pad} |", f"{line_no} | {shown}", f"{pad} | {caret}"]


def _evidence(related: Related, finding: Finding, sources: Sources) -> str:
    path = related.path or finding.path
    region = sources.region(path, related.span)
    where = f"{region.line}:{region.column}"
    if related.path and related.path != finding.path:
        where = f"{display_path(related.path)}:{where}"
    return f"{related.message} (at {where})"


def _gutter(line_no: int) -> int:
    return len(str(line_no))


def _width(text: str) -> int:
    """Terminal cells: wide (CJK, emoji) count 2, combining marks 0, tabs as TAB."""
    cells = 0
    for ch in text:
        if ch == "\t":
            cells += len(TAB)
        elif unicodedata.combining(ch):
            continue
        else:
            cells += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return cells

"""The text report, rustc-like: `path:line:col: error[rule-id] message`, the line, a caret.

Sorted by path, position and rule. Evidence and bound records follow as `= note:` lines so a
terminal reader sees why, without opening an editor; each fix as a `= help:` line and its
edit as rustc shows a suggestion: the new line with `~` under the replacement, or `-`/`+`
lines when the edit removes text or spans lines.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence

from panic_lens.model import Edit, Finding, Fix, Related, Severity
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
    pad = " " * _gutter(region.line)
    lines = [head, *_snippet(finding, sources, region.line), *(f"{pad} = {n}" for n in notes)]
    for fix in finding.fixes:
        lines.append(f"{pad} = help: {fix.title}{behaviour_note(fix)}")
        for edit in fix.edits:
            lines += _suggestion(finding.path, edit, sources)
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


def _suggestion(path: str | None, edit: Edit, sources: Sources) -> list[str]:
    """The source lines of `edit` as they read after it: `N | new` with `~` under a
    replacement within one line; else the lines it removes (`N - old`) and adds (`N + new`)."""
    first, last = edit.span.start.row, edit.span.end.row
    raw = [sources.line(path, row) for row in range(first, last + 1)]
    old = [line for line in raw if line is not None]
    if len(old) != len(raw):
        return []
    head, tail = old[0][: edit.span.start.col], old[-1][edit.span.end.col :]
    new = (head + edit.new_text.encode() + tail).split(b"\n")
    pad = " " * _gutter(max(last, first + len(new) - 1) + 1)
    if len(old) == 1 and len(new) == 1 and edit.new_text:
        start = _width(_show(head))
        under = " " * start + "~" * max(1, _width(edit.new_text))
        return [f"{pad} |", f"{first + 1:<{len(pad)}} | {_show(new[0])}", f"{pad} | {under}"]
    lines = [f"{pad} |"]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag == "equal":
            continue
        lines += [f"{first + i + 1:<{len(pad)}} - {_show(old[i])}" for i in range(i1, i2)]
        lines += [f"{first + j + 1:<{len(pad)}} + {_show(new[j])}" for j in range(j1, j2)]
    return lines


def _show(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").replace("\t", TAB)


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

"""`// panic-lens: allow(<rule-id>) <reason>` comments: which findings they silence, and hints.

A plain comment that starts with `panic-lens:` silences findings of its rules (doc comments
never do). At the end of a line of code it covers that line only; on a line of its own it
covers the next line (allows stacked on lines of their own all cover the first line after
them). A missing reason, an unknown rule id (with the closest ids) and a rule the comment
silences nothing of each yield a hint; the one for nothing silenced is `unnecessary` (editors
fade the comment) and carries a safe fix that removes the comment (or the unused ids).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from panic_lens.model import Edit, Finding, Fix, Severity, Span
from panic_lens.rules.meta import SUPPRESSION_RULE, rule_by_id
from panic_lens.settings import unknown_rule

if TYPE_CHECKING:  # tree-sitter stays unloaded for the diagnostics' `is_unused_allow`
    from panic_lens.rust.syntax import Node

_ALLOW = re.compile(r"\s*panic-lens:\s*allow\(([^)]*)\)\s*(.*)", re.DOTALL)


@dataclass(slots=True)
class Allow:
    """One allow comment, the row it covers, and what it silenced."""

    span: Span
    rules: tuple[str, ...]
    reason: str
    own_line: bool = False  # nothing but whitespace around it on its lines
    target: int = -1  # the row it covers
    used: set[str] = field(default_factory=set)
    ids: tuple[int, int] = (0, 0)  # the bytes of the ids between `allow(` and `)`
    removal: tuple[int, int] = (0, 0)  # the bytes that go when the whole comment goes

    def covers(self, finding: Finding) -> bool:
        return finding.rule in self.rules and finding.span.start.row == self.target


def find_allows(comments: Iterable[Node], src: bytes) -> list[Allow]:
    """Every allow comment among `comments` (strings that mention it do not count)."""
    from panic_lens.rust.syntax import node_text, span_of

    allows: list[Allow] = []
    for node in comments:
        match = _ALLOW.match(_comment_body(node_text(node, src)))
        if match is None:
            continue
        rules = tuple(r.strip() for r in match.group(1).split(",") if r.strip())
        reason = match.group(2).strip().rstrip("*/").strip()
        own_line = _alone(src, node.start_byte, node.end_byte)
        body = node_text(node, src)[2:]
        ids_start = node.start_byte + 2 + len(body[: match.start(1)].encode())
        ids = (ids_start, ids_start + len(match.group(1).encode()))
        removal = _removal(src, node.start_byte, node.end_byte, own_line)
        allows.append(Allow(span_of(node), rules, reason, own_line, ids=ids, removal=removal))
    _set_targets(allows)
    return allows


def _removal(src: bytes, start: int, end: int, own_line: bool) -> tuple[int, int]:
    """What removing the comment at `src[start:end]` removes: its whole line when it is alone
    there; else the blanks before it at the end of a line, or after it before code."""
    line_start = src.rfind(b"\n", 0, start) + 1
    line_end = src.find(b"\n", end)
    line_end = len(src) if line_end < 0 else line_end
    if own_line:
        return line_start, min(line_end + 1, len(src))
    if src[end:line_end].strip():  # `/* allow(..) */ code`
        return start, end + len(src[end:line_end]) - len(src[end:line_end].lstrip())
    return len(src[:start].rstrip(b" \t")), line_end


def _alone(src: bytes, start: int, end: int) -> bool:
    """Whether only whitespace shares the lines of `src[start:end]`."""
    line_start = src.rfind(b"\n", 0, start) + 1
    line_end = src.find(b"\n", end)
    after = src[end : len(src) if line_end < 0 else line_end]
    return not src[line_start:start].strip() and not after.strip()


def _set_targets(allows: list[Allow]) -> None:
    """An end-of-line allow covers its row; one on a line of its own the next row that is not
    itself such an allow (so stacked allows reach the code below them)."""
    own_rows = {a.span.end.row for a in allows if a.own_line}
    for allow in allows:
        if not allow.own_line:
            allow.target = allow.span.start.row
            continue
        row = allow.span.end.row + 1
        while row in own_rows:
            row += 1
        allow.target = row


def _comment_body(text: str) -> str:
    """The text after `//` or `/*`; doc comments (`///`, `//!`, `/**`, `/*!`) give ""."""
    body = text[2:]
    return "" if body.startswith(("/", "!", "*")) else body


def apply(
    findings: Iterable[Finding], allows: list[Allow], active: frozenset[str], src: bytes = b""
) -> tuple[list[Finding], list[Finding]]:
    """Split findings into (kept, suppression hints). `active`: rules that ran (not turned off);
    `src` (the text the allows are in) gives the unused ones a fix that removes them."""
    kept = []
    for finding in findings:
        allow = next((a for a in allows if a.covers(finding)), None)
        if allow is None:
            kept.append(finding)
        else:
            allow.used.add(finding.rule)
    return kept, [hint for allow in allows for hint in _hints(allow, active, src)]


def is_unused_allow(finding: Finding) -> bool:
    """A hint about an allow (or one of its ids) that silences nothing: the comment, or that
    part of it, can go (editors show it faded: LSP's DiagnosticTag.Unnecessary)."""
    return finding.rule == SUPPRESSION_RULE and finding.message.startswith(_UNUSED)


_UNUSED = "unused suppression"


def _hints(allow: Allow, active: frozenset[str], src: bytes) -> Iterable[Finding]:
    where = "on the next line" if allow.own_line else "on this line"
    unused = [r for r in allow.rules if rule_by_id(r) is not None and r not in allow.used
              and r in active]  # fmt: skip
    fixes = (_removal_fix(allow, unused, src),) if unused and src else ()
    for rule in allow.rules:
        if rule_by_id(rule) is None:
            yield _hint(allow, f"panic-lens: allow(..): {unknown_rule(rule)}")
        elif rule in unused:
            yield replace(_hint(allow, f"{_UNUSED}: no `{rule}` finding {where}"), fixes=fixes)
    if not allow.rules:
        yield _hint(allow, "panic-lens: allow() names no rule")
    elif allow.used and not allow.reason:
        yield _hint(allow, "add a reason after panic-lens: allow(..) saying why this call is safe")


def _removal_fix(allow: Allow, unused: list[str], src: bytes) -> Fix:
    """Remove the comment, or the unused ids from it when it silences something else (or names
    an unknown id, which its own hint is about): a safe fix, the program stays as it is."""
    from panic_lens.rust.edits import span_between

    keep = [r for r in allow.rules if r not in unused]
    if keep:
        edit = Edit(span_between(src, *allow.ids), ", ".join(keep))
        title = f"Remove {', '.join(f'`{r}`' for r in unused)} from the suppression"
    else:
        edit = Edit(span_between(src, *allow.removal), "")
        title = "Remove the unused suppression"
    return Fix(f"{SUPPRESSION_RULE}.remove", title, (edit,), preferred=True)


def _hint(allow: Allow, message: str) -> Finding:
    return Finding(SUPPRESSION_RULE, allow.span, Severity.HINT, message)

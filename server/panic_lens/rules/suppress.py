"""`// panic-lens: allow(<rule-id>) <reason>` comments: which findings they silence, and hints.

A plain comment that starts with `panic-lens:` silences findings of its rules (doc comments
never do). At the end of a line of code it covers that line only; on a line of its own it
covers the next line (allows stacked on lines of their own all cover the first line after
them). A missing reason, an unknown rule id (with the closest ids) and a rule the comment
silences nothing of each yield a hint; the one for nothing silenced is `unnecessary` (editors
fade the comment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from panic_lens.model import Finding, Severity, Span
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
        allows.append(Allow(span_of(node), rules, reason, own_line))
    _set_targets(allows)
    return allows


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
    findings: Iterable[Finding], allows: list[Allow], active: frozenset[str]
) -> tuple[list[Finding], list[Finding]]:
    """Split findings into (kept, suppression hints). `active`: rules that ran (not turned off)."""
    kept = []
    for finding in findings:
        allow = next((a for a in allows if a.covers(finding)), None)
        if allow is None:
            kept.append(finding)
        else:
            allow.used.add(finding.rule)
    return kept, [hint for allow in allows for hint in _hints(allow, active)]


def is_unused_allow(finding: Finding) -> bool:
    """A hint about an allow (or one of its ids) that silences nothing: the comment, or that
    part of it, can go (editors show it faded: LSP's DiagnosticTag.Unnecessary)."""
    return finding.rule == SUPPRESSION_RULE and finding.message.startswith(_UNUSED)


_UNUSED = "unused suppression"


def _hints(allow: Allow, active: frozenset[str]) -> Iterable[Finding]:
    where = "on the next line" if allow.own_line else "on this line"
    for rule in allow.rules:
        if rule_by_id(rule) is None:
            yield _hint(allow, f"panic-lens: allow(..): {unknown_rule(rule)}")
        elif rule not in allow.used and rule in active:
            yield _hint(allow, f"{_UNUSED}: no `{rule}` finding {where}")
    if not allow.rules:
        yield _hint(allow, "panic-lens: allow() names no rule")
    elif allow.used and not allow.reason:
        yield _hint(allow, "add a reason after panic-lens: allow(..) saying why this call is safe")


def _hint(allow: Allow, message: str) -> Finding:
    return Finding(SUPPRESSION_RULE, allow.span, Severity.HINT, message)

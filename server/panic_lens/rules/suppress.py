"""`// panic-lens: allow(<rule-id>) <reason>` comments: which findings they silence, and hints.

A plain comment that starts with `panic-lens:` silences findings of its rules on its own line or
on the line below it (doc comments never do). A missing reason, an unknown rule id and a comment
that silences nothing each yield a hint.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from panic_lens.model import Finding, Severity, Span
from panic_lens.rules.meta import SUPPRESSION_RULE, rule_by_id, rule_ids
from panic_lens.rust.syntax import Node, node_text, span_of

_ALLOW = re.compile(r"\s*panic-lens:\s*allow\(([^)]*)\)\s*(.*)", re.DOTALL)


@dataclass(slots=True)
class Allow:
    """One allow comment, and whether it silenced anything."""

    span: Span
    rules: tuple[str, ...]
    reason: str
    used: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        row = finding.span.start.row
        return finding.rule in self.rules and row in (self.span.start.row, self.span.end.row + 1)


def find_allows(comments: Iterable[Node], src: bytes) -> list[Allow]:
    """Every allow comment among `comments` (strings that mention it do not count)."""
    allows: list[Allow] = []
    for node in comments:
        match = _ALLOW.match(_comment_body(node_text(node, src)))
        if match is None:
            continue
        rules = tuple(r.strip() for r in match.group(1).split(",") if r.strip())
        reason = match.group(2).strip().rstrip("*/").strip()
        allows.append(Allow(span_of(node), rules, reason))
    return allows


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


def _hints(allow: Allow, active: frozenset[str]) -> Iterable[Finding]:
    for rule in allow.rules:
        if rule_by_id(rule) is None:
            known = ", ".join(rule_ids())
            yield _hint(allow, f"unknown rule `{rule}` in panic-lens: allow(..) (known: {known})")
        elif rule not in allow.used and rule in active:
            yield _hint(allow, f"unused suppression: no `{rule}` finding on this line or the next")
    if not allow.rules:
        yield _hint(allow, "panic-lens: allow() names no rule")
    elif allow.used and not allow.reason:
        yield _hint(allow, "add a reason after panic-lens: allow(..) saying why this call is safe")


def _hint(allow: Allow, message: str) -> Finding:
    return Finding(SUPPRESSION_RULE, allow.span, Severity.HINT, message)

"""The values every layer shares: Severity, Point, Span, Finding with its evidence and fixes,
the hover facts and the Analysis of one text.

Positions are 0-based rows and UTF-8 byte columns, exactly as tree-sitter reports them; the
conversion to what a client or a terminal wants lives in `panic_lens.positions` alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    """Diagnostic severities, named as LSP and the JSON report name them."""

    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"

    @property
    def rank(self) -> int:
        """Higher is more severe: error 3, warning 2, information 1, hint 0."""
        return _RANK[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        """Accept the four names plus the common short forms `info` and `warn`."""
        key = text.strip().lower()
        return cls(_ALIASES.get(key, key))


_RANK = {Severity.ERROR: 3, Severity.WARNING: 2, Severity.INFORMATION: 1, Severity.HINT: 0}
_ALIASES = {"info": "information", "warn": "warning", "err": "error"}


@dataclass(frozen=True, slots=True)
class Point:
    """A 0-based row and a UTF-8 byte column inside that row."""

    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open byte range of one source text, with its row/column ends."""

    start_byte: int
    end_byte: int
    start: Point
    end: Point

    def contains(self, row: int, col: int) -> bool:
        """True when the (row, byte column) position lies inside the span (end inclusive)."""
        after_start = (row, col) >= (self.start.row, self.start.col)
        return after_start and (row, col) <= (self.end.row, self.end.col)


@dataclass(frozen=True, slots=True)
class Related:
    """Evidence for a finding: where a width, a type or a mode came from."""

    span: Span
    message: str
    path: str | None = None  # None: the same file as the finding


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the bytes of `span` with `new_text`."""

    span: Span
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A machine-applicable fix: a set of non-overlapping edits of the finding's file.

    `behavior_change` marks fixes that are correct but change what the program computes
    (e.g. switching an interpolation mode); front ends must say so in the title.
    """

    id: str
    title: str
    edits: tuple[Edit, ...]
    preferred: bool = False
    behavior_change: bool = False

    @property
    def safe(self) -> bool:
        """Whether `check --fix` applies it without `--unsafe-fixes`: it keeps what the
        program computes (ruff's safe fixes)."""
        return not self.behavior_change


@dataclass(frozen=True, slots=True)
class Finding:
    """One risky call site (or a suppression hint) found by a rule."""

    rule: str
    span: Span
    severity: Severity
    message: str
    evidence: tuple[Related, ...] = ()
    records: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()
    path: str | None = None
    facts: tuple[str, ...] = ()  # the computed facts, also shown on hover


@dataclass(frozen=True, slots=True)
class HoverFact:
    """What the engine knows about one call of a burn API that a rule covers, flagged or not."""

    rule: str
    span: Span
    api: str  # e.g. "burn::tensor::module::ctc_loss"
    facts: tuple[str, ...]
    flagged: bool = False


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything the engine says about one source text."""

    findings: tuple[Finding, ...] = ()
    hovers: tuple[HoverFact, ...] = ()
    notes: tuple[str, ...] = field(default=())  # e.g. "file skipped: 25 MB over the size limit"


DEFAULT_CTC_CAPACITY = 8192
# What every suppression comment (`// panic-lens: allow(<rule-id>) <reason>`) mentions.
ALLOW_WORD = b"panic-lens"


@dataclass(frozen=True, slots=True)
class Settings:
    """Effective settings. `severity` maps a rule id to a Severity, or None when turned off."""

    severity: tuple[tuple[str, Severity | None], ...] = ()
    records: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()  # rule folders or files (docs/rule-language.md)
    scope: str = "workspace"
    ctc_capacity: int = DEFAULT_CTC_CAPACITY
    log_level: str = "info"

    def severity_for(self, rule: str) -> Severity | bool | None:
        """The configured override for `rule`: a Severity, None (off), or False (no override)."""
        for rid, sev in self.severity:
            if rid == rule:
                return sev
        return False

    def cache_key(self) -> str:
        """A stable text that changes whenever analysis results could change."""
        sev = ",".join(f"{r}={s.value if s else 'off'}" for r, s in sorted(self.severity))
        return f"sev[{sev}];cap={self.ctc_capacity};records={'|'.join(self.records)}"

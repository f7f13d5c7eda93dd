"""The record model: a schemaVersion 2 record split into its two halves, and load errors.

A record's panic-site half says where burn raises the panic; its knowledge half says why and
how to avoid it. The two halves can be about different APIs, so each is bound on its own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecordError:
    """A record (or a whole file) that could not be used. `line` is 1-based, for JSONL or JSON."""

    path: str
    line: int | None
    record_id: str | None
    field: str | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        rid = f"record {self.record_id}" if self.record_id else ""
        fld = f"field {self.field}" if self.field else ""
        named = " ".join(part for part in (rid, fld) if part)
        return f"{where}: {named}: {self.reason}" if named else f"{where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class PanicSite:
    """Where the panic is raised inside burn."""

    error_message: str
    message_pattern: str
    file_path: str | None = None
    line_number: int | None = None
    source_code: str | None = None
    source_code_start: int | None = None
    source_code_end: int | None = None
    github_url: str | None = None
    error_type: str | None = None
    severity: str | None = None


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What causes the panic and how to avoid it: free text and code the user reads."""

    documentation: str | None = None
    trigger_scenarios: str | None = None
    common_situations: str | None = None
    solutions: tuple[str, ...] = ()
    example_fix: str | None = None
    handling_strategy: str | None = None
    validation_code: str | None = None
    type_guard: str | None = None
    try_catch_pattern: str | None = None
    prevention_tips: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    background_tag: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    """The file (and 1-based line, for JSONL or a JSON object's first line) a record came from."""

    path: str
    line: int


@dataclass(frozen=True, slots=True)
class Record:
    """One validated record."""

    id: str
    panic: PanicSite
    knowledge: Knowledge
    origin: Origin
    repo: str | None = None
    slug: str | None = None
    analyzed_sha: str | None = None
    dataset_version: str | None = None
    written_by: str | None = None  # "panic-lens" for the records the project wrote itself


BY_SITE = "site"  # a panic half matched the rule's panic site; a knowledge half followed it
BY_WORDS = "words"  # a knowledge half mentions the rule's APIs more than any other rule's


@dataclass(frozen=True, slots=True)
class Binding:
    """The rules each half of a record is bound to, strongest first; empty means unbound.

    `panic_by` and `knowledge_by` say how each half was bound: BY_SITE, BY_WORDS or "".
    """

    panic_rules: tuple[str, ...] = ()
    knowledge_rules: tuple[str, ...] = ()
    panic_by: str = ""
    knowledge_by: str = ""

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule either half is bound to, panic half first, without repeats."""
        return tuple(dict.fromkeys(self.panic_rules + self.knowledge_rules))

    @property
    def status(self) -> str:
        """`bound` (both halves, same rules), `split`, `partial` (one half unbound), `unbound`."""
        if not self.panic_rules and not self.knowledge_rules:
            return "unbound"
        if not self.panic_rules or not self.knowledge_rules:
            return "partial"
        return "bound" if set(self.panic_rules) == set(self.knowledge_rules) else "split"


@dataclass(frozen=True, slots=True)
class Match:
    """A record whose messagePattern matched one line of the explained text.

    `line_no` is 1-based; `span` is the (start, end) code point range of the match in `line`.
    """

    record_id: str
    line_no: int
    line: str
    span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A line that matches a rule's known runtime message (not any record's pattern).

    `record_ids` are the records whose knowledge half is bound to that rule.
    """

    rule: str
    line_no: int
    line: str
    span: tuple[int, int]
    record_ids: tuple[str, ...]
    note: str = ""
    location: bool = False  # matched a `panicked at <file>` location, not the message


@dataclass(frozen=True, slots=True)
class Advisory:
    """A known error in one field of a record's knowledge half, shown next to that field.

    `never_apply`: the field's code or advice must never be offered as a machine-applicable fix.
    """

    record_id: str
    field: str
    note: str
    never_apply: bool = True

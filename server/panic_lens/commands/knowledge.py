"""Printing a record's knowledge half for the terminal, with advisories beside the fields."""

from __future__ import annotations

from collections.abc import Iterable

from panic_lens.catalog import Advisory, Catalog, Record
from panic_lens.rules.meta import rule_by_id

# Printed in full; advisories on other fields (validationCode, ...) are printed on their own.
SHOWN_FIELDS = ("documentation", "triggerScenarios", "solutions", "exampleFix")


def knowledge_lines(catalog: Catalog, record: Record) -> list[str]:
    """Documentation, solutions and the example fix, each followed by its advisory notes."""
    notes = catalog.advisories(record.id)
    printed: set[str] = set()
    k = record.knowledge
    out: list[str] = []
    if k.documentation:
        out += [f"  about: {k.documentation}", *_notes(notes, "documentation", printed)]
    if k.trigger_scenarios:
        out += [f"  when: {k.trigger_scenarios}", *_notes(notes, "triggerScenarios", printed)]
    if k.solutions:
        out.append("  solutions (from the record):")
        out += [f"    - {s}" for s in k.solutions]
        out += _notes(notes, "solutions", printed)
    if k.example_fix:
        out.append("  example fix (from the record; never applied automatically):")
        out += [f"    | {line}" for line in k.example_fix.splitlines()]
        out += _notes(notes, "exampleFix", printed)
    for field in sorted({a.field for a in notes} - set(SHOWN_FIELDS)):
        out += _notes(notes, field, printed, label=f"the record's {field}: ")
    return out


def rule_lines(rule_ids: Iterable[str]) -> list[str]:
    out: list[str] = []
    for rid in rule_ids:
        info = rule_by_id(rid)
        if info is not None:
            out += [f"  {rid}: {info.summary}", f"  rule doc: docs/rules/{rid}.md"]
    return out


def _notes(notes: Iterable[Advisory], field: str, printed: set[str], label: str = "") -> list[str]:
    """Notes on `field`; a note already printed for another field is not repeated."""
    out = []
    for a in notes:
        if a.field == field and a.note not in printed:
            printed.add(a.note)
            out.append(f"    ! panic-lens note: {label}{a.note}")
    return out

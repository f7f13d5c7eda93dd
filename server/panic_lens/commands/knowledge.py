"""Printing a record's knowledge half for the terminal, with advisories beside the fields."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlparse

from panic_lens.catalog import Advisory, Catalog, Record
from panic_lens.catalog.ruledocs import about_lines, doc_link
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
    """Each rule's summary and its page when it has one that exists; else what the rule says
    of itself, inline (`catalog.ruledocs`): never a page that is not there."""
    out: list[str] = []
    for rid in rule_ids:
        info = rule_by_id(rid)
        if info is None:
            continue
        out.append(f"  {rid}: {info.summary}")
        link = doc_link(info)
        if link is not None:
            out.append(f"  rule doc: {_shown_link(link)}")
            continue
        if info.spec is not None and info.spec.doc:
            out += [f"    {line}".rstrip() for line in info.spec.doc.splitlines()]
        out += [f"  {line}" for line in about_lines(info)]
    return out


def _shown_link(link: str) -> str:
    """A file's page as its path (a terminal opens it as is), a web page as its address."""
    if not link.startswith("file:"):
        return link
    path = Path(unquote(urlparse(link).path))
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _notes(notes: Iterable[Advisory], field: str, printed: set[str], label: str = "") -> list[str]:
    """Notes on `field`; a note already printed for another field is not repeated."""
    out = []
    for a in notes:
        if a.field == field and a.note not in printed:
            printed.add(a.note)
            out.append(f"    ! panic-lens note: {label}{a.note}")
    return out

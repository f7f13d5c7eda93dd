"""Hovers (`lsp_hover`) and the Markdown behind them and the `panic-lens.showRecord` documents.

Records are the user's data: shown as they are, with an advisory note next to any field that
burn's source shows to be wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from panic_lens.catalog.advisories import advised_against
from panic_lens.catalog.coverage import coverage_of
from panic_lens.catalog.ruledocs import about_lines, doc_link
from panic_lens.lsp.convert import LineIndex
from panic_lens.model import Analysis, Finding, HoverFact
from panic_lens.rules.meta import RuleInfo, rule_by_id

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog
    from panic_lens.catalog.model import Advisory, Record


def lsp_hover(
    analysis: Analysis, index: LineIndex, position: types.Position, catalog: Catalog | None
) -> types.Hover | None:
    """The hover for the innermost covered call under `position` (flagged calls first)."""
    point = index.point(position)
    facts = [h for h in analysis.hovers if h.span.contains(point.row, point.col)]
    if not facts:  # a finding its rule gave no HoverFact for (e.g. a suppression hint)
        facts = [
            HoverFact(f.rule, f.span, f.rule, f.facts, flagged=True)
            for f in analysis.findings
            if f.span.contains(point.row, point.col)
        ]
    if not facts:
        return None
    fact = min(facts, key=lambda h: (not h.flagged, h.span.end_byte - h.span.start_byte))
    start = fact.span.start
    flagged = (f for f in analysis.findings if f.rule == fact.rule)
    finding = next((f for f in flagged if f.span.contains(start.row, start.col)), None)
    value = hover_markdown(fact, finding, catalog)
    content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=value)
    return types.Hover(contents=content, range=index.range(fact.span))


def hover_markdown(fact: HoverFact, finding: Finding | None, catalog: Catalog | None) -> str:
    """Facts for every covered call; when flagged, the panic and the bound records too."""
    info = rule_by_id(fact.rule)
    title = info.title if info else fact.rule
    parts = [f"**panic-lens** · `{fact.api}` · {title}", _bullets(fact.facts)]
    if finding is not None:
        parts.append(f"**Will panic:** {finding.message}")
        extra = [f for f in finding.facts if f not in fact.facts]
        parts.append(_bullets(extra))
        if info:
            parts.append(rule_doc_markdown(info))
        if catalog is not None:
            parts.extend(records_markdown(fact.rule, finding.records, catalog))
    return "\n\n".join(p for p in parts if p)


def rule_doc_markdown(info: RuleInfo) -> str:
    """A link to the rule's page when it has one that exists; else the rule's own words
    inline (its `[doc]` text, when it fires, its panic sites, where it comes from): never a
    link to a page that is not there (`catalog.ruledocs`)."""
    link = doc_link(info)
    if link is not None:
        return f"[Rule `{info.id}`]({link})"
    parts = [f"**Rule `{info.id}`:** {info.summary}"]
    if info.spec is not None and info.spec.doc:
        parts.append(info.spec.doc)
    parts.append(_bullets(about_lines(info)))
    return "\n\n".join(parts)


def records_markdown(rule: str, record_ids: Iterable[str], catalog: Catalog) -> list[str]:
    """For each record: its panic site when its panic half is about `rule`, its knowledge when
    its knowledge half is (a record's two halves may be about different rules)."""
    out = []
    for rid in record_ids:
        record = catalog.get(rid)
        if record is None:
            continue
        binding = catalog.binding(rid)
        if rule in binding.panic_rules:
            out.append(panic_site_markdown(record))
        if rule in binding.knowledge_rules:
            out.append(knowledge_markdown(record, advisories(catalog, rid)))
    return out


def panic_site_markdown(record: Record) -> str:
    site = record.panic
    where = site.file_path or "burn"
    if site.line_number:
        where += f":{site.line_number}"
    link = f"[{where}]({site.github_url})" if site.github_url else f"`{where}`"
    head = f"---\n\n**Panic site** (record `{record.id}`): {link}"
    return f"{head}\n\n```text\n{site.error_message}\n```"


def knowledge_markdown(
    record: Record, notes: Sequence[Advisory] = (), shown: dict[str, str] | None = None
) -> str:
    k, shown = record.knowledge, {} if shown is None else shown
    parts = [f"---\n\n**What record `{record.id}` says**"]
    parts.append(_with_note(k.documentation or "", "documentation", notes, shown))
    if k.trigger_scenarios:
        parts.append(_with_note(f"*When:* {k.trigger_scenarios}", "triggerScenarios", notes, shown))
    if k.solutions:
        marked = [_marked(record.id, s) for s in k.solutions]
        parts.append(_with_note("*Solutions:*\n\n" + _numbered(marked), "solutions", notes, shown))
    if k.prevention_tips:
        tips = "*Prevention:*\n\n" + _bullets(k.prevention_tips)
        parts.append(_with_note(tips, "preventionTips", notes, shown))
    if k.example_fix:
        block = f"*Example fix (from the record):*\n\n```rust\n{k.example_fix}\n```"
        parts.append(_with_note(block, "exampleFix", notes, shown))
    return "\n\n".join(p for p in parts if p)


def record_document(record: Record, catalog: Catalog) -> str:
    """The whole record as one Markdown page (the showRecord command writes it to a file)."""
    binding = catalog.binding(record.id)
    notes = advisories(catalog, record.id)
    shown: dict[str, str] = {}
    panic_rules = ", ".join(binding.panic_rules) or "unbound"
    knowledge_rules = ", ".join(binding.knowledge_rules) or "unbound"
    k = record.knowledge
    extra = [
        ("Common situations", k.common_situations, "commonSituations"),
        ("Validation code", _code(k.validation_code), "validationCode"),
        ("Type guard", _code(k.type_guard), "typeGuard"),
        ("Handling pattern", _code(k.try_catch_pattern), "tryCatchPattern"),
    ]
    parts = [
        f"# Record {record.id}",
        f"Panic half bound to: **{panic_rules}**; knowledge half bound to: **{knowledge_rules}**.",
        f"Panic half: {coverage_of(catalog, record.id).describe()}.",
        panic_site_markdown(record).removeprefix("---\n\n"),
        _code(record.panic.source_code) or "",
        knowledge_markdown(record, notes, shown).removeprefix("---\n\n"),
    ]
    for title, body, field in extra:
        if body:
            parts.append(_with_note(f"## {title}\n\n{body}", field, notes, shown))
    parts.append(f"*Source: {record.origin.path}:{record.origin.line}*")
    return "\n\n".join(p for p in parts if p) + "\n"


def advisories(catalog: Catalog, record_id: str) -> tuple[Advisory, ...]:
    return tuple(catalog.advisories_for(record_id))


def _with_note(text: str, field: str, notes: Sequence[Advisory], shown: dict[str, str]) -> str:
    """`text` followed by the advisories on `field`; a note already shown (`shown`: note ->
    field) for an earlier field of the same record is referred to rather than repeated."""
    if not text:
        return ""
    mine = []
    for a in (n for n in notes if n.field == field):
        earlier = shown.setdefault(a.note, field)
        same = a.note if earlier == field else f"the same as the note on {earlier} above"
        mine.append(f"> **Note from panic-lens** ({field}): {same}")
    return "\n\n".join([text, *mine])


def _marked(record_id: str, solution: str) -> str:
    """A solution an advisory shows to be wrong says so where it is listed (the note with the
    correction follows the list); it is never offered as a code action."""
    if advised_against(record_id, "solutions", solution):
        return f"{solution} **(wrong: see the note from panic-lens below)**"
    return solution


def _bullets(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _numbered(items: Iterable[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def _code(text: str | None) -> str | None:
    return f"```rust\n{text}\n```" if text else None

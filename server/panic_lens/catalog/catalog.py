"""The Catalog: validated records, each half bound to rules, advisories and explain.

`load_catalog` never raises on bad data: it returns the catalog of the good records plus a
RecordError for every file, line or field that could not be used.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from panic_lens.catalog.advisories import advisories_for
from panic_lens.catalog.binding import bind_record
from panic_lens.catalog.lines import Lines
from panic_lens.catalog.load import default_records_root, files_print, read_records, record_files
from panic_lens.catalog.model import Advisory, Binding, Match, Record, RecordError, RuleMatch
from panic_lens.catalog.patterns import DEFAULT_TIMEOUT
from panic_lens.rules.meta import generation

if TYPE_CHECKING:
    from panic_lens.catalog.derive import Outcome
    from panic_lens.catalog.explain import ExplainIndex, ExplainResult


class Catalog:
    """Records by id, in load order. The explain index is built on first use."""

    def __init__(self, records: Iterable[Record] = ()) -> None:
        self.records: tuple[Record, ...] = tuple(records)
        self._by_id = {r.id: r for r in self.records}
        self._bindings: dict[str, Binding] = {}  # bound on first use: explain reads few
        self._by_rule: dict[str, tuple[str, ...]] = {}
        self._generation = generation()  # bindings are to the rules of this registry state
        self._index: ExplainIndex | None = None

    def __len__(self) -> int:
        return len(self.records)

    def __bool__(self) -> bool:
        return True  # an empty catalog is still a catalog (`if catalog:` must not skip it)

    def get(self, record_id: str) -> Record | None:
        return self._by_id.get(record_id)

    def binding(self, record_id: str) -> Binding:
        """The rules each half of the record is bound to (empty Binding for unknown ids)."""
        record = self._by_id.get(record_id)
        if record is None:
            return Binding()
        self._follow_registry()
        if record_id not in self._bindings:
            self._bindings[record_id] = bind_record(record)
        return self._bindings[record_id]

    def _follow_registry(self) -> None:
        """Rules added or removed since the bindings were made: bind again."""
        if self._generation != generation():
            self._bindings.clear()
            self._by_rule.clear()
            self._generation = generation()

    def record_ids_for_rule(self, rule_id: str) -> tuple[str, ...]:
        """Records with either half bound to `rule_id`; `binding()` says which half.
        (Asked for every rule of every analysed file: computed once per rule.)"""
        self._follow_registry()
        found = self._by_rule.get(rule_id)
        if found is None:
            found = tuple(r.id for r in self.records if rule_id in self.binding(r.id).rules)
            self._by_rule[rule_id] = found
        return found

    def panic_record_ids(self, rule_id: str) -> tuple[str, ...]:
        """Records whose panic site (message, burn source location) is the rule's panic."""
        return tuple(r.id for r in self.records if rule_id in self.binding(r.id).panic_rules)

    def knowledge_record_ids(self, rule_id: str) -> tuple[str, ...]:
        """Records whose knowledge (causes, solutions) is about the rule's panic."""
        return tuple(r.id for r in self.records if rule_id in self.binding(r.id).knowledge_rules)

    def advisories(self, record_id: str) -> tuple[Advisory, ...]:
        """Known errors in the record's knowledge fields, to show next to those fields."""
        record = self.get(record_id)
        return advisories_for(record) if record else ()

    def advisories_for(self, record_id: str) -> tuple[Advisory, ...]:
        """The same as `advisories` (the name the server reads)."""
        return self.advisories(record_id)

    def never_apply(self, record_id: str, field: str) -> bool:
        """True when `field` of the record must never become a machine-applicable fix."""
        return any(a.field == field and a.never_apply for a in self.advisories(record_id))

    def explain(self, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> list[Match]:
        """Records whose messagePattern matches a line of `text`, by line then id."""
        return self.explain_patterns(text, timeout=timeout).matches

    def explain_patterns(self, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> ExplainResult:
        """Like `explain`, plus the ids of patterns skipped after a timeout."""
        if self._index is None:
            from panic_lens.catalog.explain import ExplainIndex  # explain's alone: ahocorasick_rs

            self._index = ExplainIndex([(r.id, r.panic.message_pattern) for r in self.records])
        return self._index.search(text, timeout=timeout)

    def explain_rules(self, text: str, *, timeout: float = 1.0) -> list[RuleMatch]:
        """Lines that show a rule's known runtime text, with the records whose knowledge
        half is bound to that rule (found even when no record's pattern matches)."""
        from panic_lens.catalog.runtime import find_runtime_texts

        return [
            RuleMatch(
                h.rule,
                h.line_no,
                h.line,
                h.span,
                self.knowledge_record_ids(h.rule),
                h.note,
                h.location,
            )
            for h in find_runtime_texts(Lines(text), timeout)
        ]


@dataclass(frozen=True, slots=True)
class LoadResult:
    catalog: Catalog
    errors: tuple[RecordError, ...]
    # the record files as found on disk before reading (`load.files_print`); None when one
    # could not be looked at. It keys the derivation cache in place of the records' halves.
    files_print: str | None = None
    # each record's derivation outcome, once the rules derived from them are registered
    # (`commands.common.derive_checks`); read for why a record has no rule
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)


def load_catalog(
    paths: Sequence[str | os.PathLike[str]] = (), *, include_default: bool = True
) -> LoadResult:
    """Load the shipped records (unless told not to) and then `paths`, files or folders.

    A file named twice is read once; a repeated record id is an error and the first one wins.
    """
    roots = [default_records_root(), *paths] if include_default else list(paths)
    files, errors = record_files(roots)
    printed = files_print(files)  # before reading: a file changed meanwhile gets a new print
    records: dict[str, Record] = {}
    for file in files:
        for item in read_records(file):
            if isinstance(item, RecordError):
                errors.append(item)
            elif item.id in records:
                errors.append(_duplicate(item, records[item.id]))
            else:
                records[item.id] = item
    return LoadResult(Catalog(records.values()), tuple(errors), printed)


def _duplicate(record: Record, first: Record) -> RecordError:
    where = f"{first.origin.path}:{first.origin.line}"
    return RecordError(
        record.origin.path, record.origin.line, record.id, "id", f"duplicate id, first at {where}"
    )

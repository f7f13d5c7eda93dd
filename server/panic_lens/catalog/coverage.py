"""What checks a record: a hand-written rule, a rule derived from it, or nothing (and why).

Every front end (`records check`, `explain`, `rules list`, `check`, the editor) says the same
thing because each reads it from the same place: the record's panic half binding
(`Catalog.binding`), made against the one rule registry, after the rules in use and the rules
derived from the records in use are registered (`catalog/derive.py: register_derived`). A rule
with `derived_from` is derived; any other rule (shipped or the user's) is hand-written. A
record with no rule at all is `none`, with the deriver's reason when it has one: "unbound"
never hides a derived rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from panic_lens.rules.meta import SHIPPED, RuleInfo, rule_by_id

if TYPE_CHECKING:
    from panic_lens.catalog.catalog import Catalog

HAND, DERIVED, NONE = "hand-written", "derived", "none"


@dataclass(frozen=True, slots=True)
class Coverage:
    """`kind` is HAND, DERIVED or NONE; `rules` the rules that check the record (its panic
    half's); `detail`: for a derived rule, burn's panic site; for none, why nothing checks it."""

    kind: str
    rules: tuple[str, ...] = ()
    detail: str = ""
    why: str = ""  # for none: the kind of reason (`site not found`, ...), `detail` the reason

    def describe(self) -> str:
        """One phrase, the same in every front end."""
        if self.kind == NONE:
            return (
                f"no rule checks it ({self.why}): {self.detail}"
                if self.why
                else "no rule checks it"
            )
        if self.kind == DERIVED:
            where = f" ({self.detail})" if self.detail else ""
            return f"checked by the derived rule {', '.join(self.rules)}{where}"
        names = ", ".join(f"{rid} ({rule_origin(rid)})" for rid in self.rules)
        return f"checked by the hand-written rule {names}"


def coverage_of(
    catalog: Catalog, record_id: str, outcomes: Mapping[str, object] | None = None
) -> Coverage:
    """The record's coverage, from its binding to the rules in use. `outcomes`:
    `register_derived`'s answer per record, read only for why a record has no rule and a
    derived rule's burn site."""
    rules = catalog.binding(record_id).panic_rules
    outcome = (outcomes or {}).get(record_id)
    if not rules:
        return _none(outcome)
    hand = tuple(r for r in rules if not is_derived(r))
    if hand:
        return Coverage(HAND, hand)
    site = getattr(outcome, "site", "")
    return Coverage(DERIVED, rules, f"burn {site}" if site else "")


def from_outcome(outcome: object) -> Coverage:
    """The coverage the deriver's outcome for a record says (for records not loaded in the
    catalog: the editor's unsaved records file)."""
    from panic_lens.catalog.derive import Covered, Derived

    if isinstance(outcome, Covered):
        return Coverage(HAND, outcome.rules)
    if isinstance(outcome, Derived):
        return Coverage(DERIVED, (outcome.spec.id,), f"burn {outcome.site}")
    return _none(outcome)


def _none(outcome: object) -> Coverage:
    from panic_lens.catalog.derive import NotDerived

    if isinstance(outcome, NotDerived):
        return Coverage(NONE, (), outcome.reason, outcome.kind)
    return Coverage(NONE)


def is_derived(rule_id: str) -> bool:
    info = rule_by_id(rule_id)
    return info is not None and info.spec is not None and info.spec.derived_from is not None


def rule_origin(rule_id: str) -> str:
    """Where a rule comes from, in a few words: `shipped`, its rule file, or its record."""
    info = rule_by_id(rule_id)
    if info is None:
        return "not in use"
    return origin_of(info)


def origin_of(info: RuleInfo) -> str:
    spec = info.spec
    if spec is None:
        return info.module
    if spec.derived_from is not None:
        return f"derived from record {spec.derived_from}"
    return "shipped" if info in SHIPPED else spec.source

"""Which calls of one file the rules in the language look at: every rule's calls by name,
found once per file, the free functions a `use .. as` renames, and the rules that have a call
in the file at all (the engine skips the others)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from panic_lens.rules.language.plan import Plan, plan_of
from panic_lens.rules.language.spec import Where
from panic_lens.rules.meta import per_rule_set, rules

if TYPE_CHECKING:
    from panic_lens.rust.facts import CallSite, FileFacts


def sites(facts: FileFacts) -> tuple[dict[str, list[CallSite]], list[CallSite]]:
    """The file's calls of every rule in the language, by name, found once per file (every
    rule asks the same question), and the calls by other names a `use .. as` may bind. Kept
    per `facts.only`: a re-analysis runs the rules over several function bodies of one text.
    With `facts.may_fire`, only the calls of those rules are looked for (a call by another
    rule's name still counts as that rule's, not as renamed)."""
    key = ("language", "sites", facts.only)
    found = facts.memo.get(key)
    if found is None:
        names = search = _all_call_names()
        if facts.may_fire is not None:  # the other rules find nothing here: not their calls
            named = _rules_by_call_name()[0]
            search = frozenset(name for name in names if named[name] & facts.may_fire)
        targets = _path_targets()
        by_name: dict[str, list[CallSite]] = {}
        renamed: list[CallSite] = []
        for site in facts.calls(search, renamed=True):
            if site.name in names:
                if site.kind == "path" and site.resolves_to(targets[site.name]) is None:
                    continue  # another type's (`Vec::new(..)`): no rule's `where` binds it
                by_name.setdefault(site.name, []).append(site)
            elif site.kind == "path":
                renamed.append(site)
        found = facts.memo[key] = (by_name, renamed)
    return found


@per_rule_set
def _path_targets() -> dict[str, frozenset[str]]:
    """Every path that a call by path, written with a rule's call name, must resolve to for
    some `where` of that name to bind it (`_bind`), by name."""
    found: dict[str, set[str]] = {}
    for info in rules():
        if info.spec is None or info.spec.hook is not None:
            continue
        plan = plan_of(info.spec)
        for where in info.spec.wheres:
            found.setdefault(where.name, set()).update(plan.targets[where])
    return {name: frozenset(paths) for name, paths in found.items()}


def rules_with_sites(facts: FileFacts) -> frozenset[str]:
    """The ids of the rules in the language with a call in `facts` (in `facts.only`) that
    `detect` would look at: no other rule in the language can find anything there."""
    key = ("language", "live", facts.only)
    found = facts.memo.get(key)
    if found is None:
        by_name, renamed = sites(facts)
        named, free = _rules_by_call_name()
        live: set[str] = set(free) if renamed else set()
        for name in by_name:
            live |= named.get(name, frozenset())
        found = facts.memo[key] = frozenset(live)
    return found


@per_rule_set
def _rules_by_call_name() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """The ids of the rules in the language by the call names of their `where`s, and those
    with a free function (a `use .. as` may call it by another name)."""
    named: dict[str, set[str]] = {}
    free: set[str] = set()
    for info in rules():
        if info.spec is None or info.spec.hook is not None:
            continue
        for where in info.spec.wheres:
            named.setdefault(where.name, set()).add(info.id)
            if not where.method_like:
                free.add(info.id)
    return {name: frozenset(ids) for name, ids in named.items()}, frozenset(free)


def rule_sites(
    plan: Plan, by_name: dict[str, list[CallSite]], renamed: list[CallSite]
) -> Iterator[CallSite]:
    for name in plan.by_name:
        yield from by_name.get(name, ())
    if plan.free:
        yield from renamed


@per_rule_set
def _all_call_names() -> frozenset[str]:
    """The call names of every rule in the language that is registered."""
    return frozenset(_rules_by_call_name()[0])


def renamed_wheres(site: CallSite, plan: Plan) -> tuple[Where, ...]:
    """A free function called by a `use .. as` name."""
    if site.kind != "path":
        return ()
    out = []
    for wheres in plan.by_name.values():
        for where in wheres:
            if not where.method_like and site.resolves_to(plan.targets[where]) is not None:
                out.append(where)
    return tuple(out)

"""What a record's knowledge half must name to be about a rule's panic: the rule's call.

A rule's burn names come from its rule file: the `[[where]]` calls (`burn::tensor::Tensor::flip`,
`burn::nn::loss::HuberLossConfig::init`, a free function `burn::tensor::signal::rfft`) and the
declared `apis`. Not every name says which panic a text is about:

- a **call** names it on its own: a free function (`rfft`, `ctc_loss`) or a declared snake_case
  API (`change_client_backend`, `with_groups`);
- a **method** names it only together with its type, in the same half (`Tensor` and `flip`);
  entry-point names that every config or module has (`init`, `new`, `forward`) do not;
- a **type** names it on its own only when no other rule lists it (`AsyncPolicy`); `Tensor`,
  shared by every tensor rule, says nothing alone.

Words bind a knowledge half by these **precise** names only. A half whose panic half is bound by
site follows it when it names that rule, counting also the types of the rule's calls that no
other rule lists (`HuberLossConfig`) and a type with the rule's entry point (`Conv3dConfig` and
`init`): its two halves then describe the same panic. A half about another method of the type
(`Tensor` and `to_device` beside a `reshape` panic) does not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from panic_lens.rules.meta import RuleInfo, per_rules

# Entry points every config, module, optimizer or metric has: they say nothing of which panic.
GENERIC_METHODS = frozenset(
    {"new", "init", "forward", "default", "from", "into", "build", "step", "update", "call"}
)
MAX_COUNT = 3  # repeating a name in one field adds evidence, but not without bound

CALL, TYPE, METHOD = "call", "type", "method"
OWNER, ENTRY = "owner", "entry"  # counted only to follow a panic half (`Scores.follow`)


class Entry(NamedTuple):
    """One spelling's meaning for one rule."""

    rule: int  # the rule's position in the registry
    # CALL, TYPE; METHOD with its `owner` in the half; to follow only: OWNER (a type of the
    # rule's calls no other rule lists), ENTRY (a generic method with its `owner` in the half)
    kind: str
    key: str  # the name it spells (repeats of one name in a field are capped together)
    weight: float
    owner: tuple[str, ...] = ()  # METHOD: the spellings of its type


class NameIndex(NamedTuple):
    # spelling -> its entries grouped by the type they need in the half (() for none): `init`
    # is the entry point of many configs, and each type is looked for once
    by_form: dict[str, tuple[tuple[tuple[str, ...], tuple[Entry, ...]], ...]]
    ids: tuple[str, ...]  # rule ids in registry order
    # A dataset repeats knowledge halves (records of one panic): each is scored once per index.
    memo: dict[tuple[object, ...], Scores]


def is_type(name: str) -> bool:
    return name[:1].isupper()


def api_weight(name: str) -> float:
    """Distinctive identifiers (snake_case, CamelCase) weigh 1; a plain word such as
    `interpolate` or `flip` also occurs in prose about other things, so it weighs 0.5."""
    distinctive = (
        "_" in name or any(c.isupper() for c in name[1:]) or any(c.isdigit() for c in name)
    )
    return 1.0 if distinctive else 0.5


def snake_case(name: str) -> str:
    """`AsyncPolicy` -> `async_policy`, `CTCLoss` -> `ctc_loss`; snake names are unchanged."""
    import re

    out = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return out.lower()


def spellings(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((name, snake_case(name))))


def _calls(rule: RuleInfo) -> tuple[list[str], list[tuple[str, str]]]:
    """The rule's free functions and (type, method) calls from its rule file."""
    free: list[str] = []
    methods: list[tuple[str, str]] = []
    for where in rule.spec.wheres if rule.spec is not None else ():
        if where.method_like:
            methods.append((where.owner_name, where.name))
        else:
            free.append(where.name)
    return free, methods


@per_rules
def name_index(registry: tuple[RuleInfo, ...]) -> NameIndex:
    """Every spelling of every rule's names, with what it counts for."""
    listed: Counter[str] = Counter()  # type name -> how many rules list it
    for rule in registry:
        _, methods = _calls(rule)
        listed.update({*(a for a in rule.apis if is_type(a)), *(t for t, _ in methods)})
    by_form: dict[str, list[Entry]] = {}

    def add(form_of: str, entry: Entry) -> None:
        for form in spellings(form_of):
            by_form.setdefault(form, []).append(entry)

    for i, rule in enumerate(registry):
        free, methods = _calls(rule)
        owners = {t for t, _ in methods}
        for name in dict.fromkeys((*free, *rule.apis)):
            if not is_type(name):
                add(name, Entry(i, CALL, name, api_weight(name)))
            elif listed[name] == 1:
                add(name, Entry(i, OWNER if name in owners else TYPE, name, api_weight(name)))
        for owner, method in dict.fromkeys(methods):
            kind = ENTRY if method in GENERIC_METHODS else METHOD
            add(method, Entry(i, kind, method, api_weight(method), spellings(owner)))
    return NameIndex(
        {form: _by_owner(entries) for form, entries in by_form.items()},
        tuple(rule.id for rule in registry),
        {},
    )


def _by_owner(entries: list[Entry]) -> tuple[tuple[tuple[str, ...], tuple[Entry, ...]], ...]:
    groups: dict[tuple[str, ...], list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.owner, []).append(entry)
    return tuple((owner, tuple(group)) for owner, group in groups.items())


class Scores(NamedTuple):
    """A half's scores per rule id (rules with none left out, in registry order): by its
    precise names, and to follow a panic half (precise names, the types of the rule's calls
    no other rule lists, a type with the rule's entry point)."""

    precise: dict[str, float]
    follow: dict[str, float]


MEMO_SIZE = 4096


def scores(
    fields: Mapping[str, Mapping[str, int]],
    weights: Mapping[str, float],
    among: Iterable[RuleInfo] | None = None,
    *,
    key: tuple[object, ...] | None = None,
) -> Scores:
    """Both scores of a half from its identifier counts per field, in one pass: per field,
    the field's weight x each name's weight x its capped count. `key`: the half's texts, to
    answer a repeated half from the index's memo."""
    index = name_index(None if among is None else tuple(among))
    if key is not None:
        at = (key, tuple(weights.items()))
        found = index.memo.get(at)
        if found is None:
            if len(index.memo) >= MEMO_SIZE:
                index.memo.clear()
            found = index.memo[at] = _scores(fields, weights, index)
        return found
    return _scores(fields, weights, index)


def _scores(
    fields: Mapping[str, Mapping[str, int]], weights: Mapping[str, float], index: NameIndex
) -> Scores:
    present: set[str] = set()
    for counts in fields.values():
        present.update(counts)
    precise: dict[int, float] = {}
    follow: dict[int, float] = {}
    by_form = index.by_form
    for field, counts in fields.items():
        weight = weights.get(field, 0.0)
        if not weight:
            continue
        seen: dict[tuple[int, str], tuple[Entry, int]] = {}
        for token, n in counts.items():
            groups = by_form.get(token)
            if groups is None:
                continue
            for owner, entries in groups:
                if owner and not any(o in present for o in owner):
                    continue
                for entry in entries:
                    at = (entry.rule, entry.key)
                    seen[at] = (entry, seen[at][1] + n if at in seen else n)
        for (rule, _), (entry, n) in seen.items():
            added = weight * entry.weight * min(n, MAX_COUNT)
            follow[rule] = follow.get(rule, 0.0) + added
            if entry.kind not in (OWNER, ENTRY):
                precise[rule] = precise.get(rule, 0.0) + added
    return Scores(_by_id(precise, index), _by_id(follow, index))


def _by_id(total: dict[int, float], index: NameIndex) -> dict[str, float]:
    return {index.ids[i]: total[i] for i in sorted(total) if total[i] > 0}


def best(found: Mapping[str, float], floor: float) -> tuple[str, ...]:
    """The one rule scoring most, at least `floor`; a tie at the top binds nothing."""
    if not found:
        return ()
    top = max(found.values())
    leaders = [rid for rid, score in found.items() if score == top]
    return (leaders[0],) if top >= floor and len(leaders) == 1 else ()

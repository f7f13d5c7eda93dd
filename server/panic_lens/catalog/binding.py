"""Binding each half of a record to rules: the panic half by site, the knowledge half after it.

The **panic half** binds to the rule whose declared panic site in burn it matches
(`catalog/sites.py`: same file, and the guard quoted or the message carried), and to nothing
otherwise: a record about another panic is never cited by a rule's findings.

The **knowledge half** follows the panic half when it names that rule's calls at least as much
as any other rule's (`catalog/names.py`): both halves then describe the same panic. Otherwise it
is bound by words, by the names that say precisely which call it is about (a free function, a
type with one of its rule's methods, a type no other rule lists), weighted by the field they
occur in and by how distinctive the name is: to the one rule scoring most, at least MIN_SCORE.
A tie at the top binds nothing: a text naming two panics equally is about neither for sure.
One exception: when the panic half's own words point at a rule whose site it is not (a burn-nn
`Interpolate2dConfig` assert is not interpolate's backward kernel), the record is about another
panic of that rule's API, and its knowledge is not bound to that rule either.
`score_half` and `pick` are the older, broader word scores (every API a rule lists, `Tensor`
included): they only find those neighbours, and show evidence in `records check --scores`.
Nothing here knows record ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import NamedTuple

from panic_lens.catalog import names
from panic_lens.catalog.model import BY_SITE, BY_WORDS, Binding, Record
from panic_lens.catalog.names import api_weight, snake_case
from panic_lens.catalog.sites import site_rules
from panic_lens.rules.meta import RuleInfo, per_rules, rules

MIN_SCORE = 2.0  # e.g. one distinctive name in errorMessage, or three in sourceCode
DOMINANCE = 0.5  # a second rule binds only when it is at least half as present as the first
MAX_COUNT = names.MAX_COUNT
__all__ = ["api_weight", "bind_record", "neighbours", "score_half", "snake_case"]

# How much a mention in each field says about what the half is about. Prose fields written
# about the panic weigh most; code listings mention neighbouring APIs and weigh less.
PANIC_WEIGHTS = {
    "errorMessage": 3.0,
    "messagePattern": 1.0,
    "filePath": 2.0,
    "sourceCode": 1.0,
    "githubUrl": 0.5,
}
KNOWLEDGE_WEIGHTS = {
    "documentation": 3.0,
    "triggerScenarios": 3.0,
    "commonSituations": 2.0,
    "solutions": 2.0,
    "exampleFix": 2.0,
    "validationCode": 1.0,
    "typeGuard": 1.0,
    "tryCatchPattern": 1.0,
    "preventionTips": 1.0,
    "tags": 2.0,
    "backgroundTag": 1.0,
}


def bind_record(record: Record, among: Iterable[RuleInfo] | None = None) -> Binding:
    """Bind the panic half by site, then the knowledge half (see the module docstring)."""
    registry = rules() if among is None else tuple(among)
    given = None if among is None else registry  # the registry's rules: known by generation
    panic = site_rules(record, given)
    texts = knowledge_fields(record)
    counts = {field: _identifiers(text) for field, text in texts.items()}
    named = names.scores(counts, KNOWLEDGE_WEIGHTS, given, key=tuple(texts.items()))
    follows = tuple(rid for rid in panic if named.follow.get(rid, 0.0) > 0)
    if follows:
        return Binding(panic, follows, BY_SITE, BY_SITE)
    words = names.best(named.precise, MIN_SCORE)
    if words:
        others = neighbours(record, panic, given)
        words = tuple(rid for rid in words if rid not in others)
    return Binding(panic, words, BY_SITE if panic else "", BY_WORDS if words else "")


def neighbours(
    record: Record, panic: tuple[str, ...], among: Iterable[RuleInfo] | None = None
) -> frozenset[str]:
    """Rules the panic half's words would bind it to although it matched none of their sites:
    the record is about another panic of those rules' APIs."""
    registry = rules() if among is None else tuple(among)
    scores = score_half(panic_fields(record), PANIC_WEIGHTS, None if among is None else registry)
    return frozenset(pick(scores, registry)) - set(panic)


def panic_fields(record: Record) -> dict[str, str]:
    p = record.panic
    return _texts(
        errorMessage=p.error_message,
        messagePattern=p.message_pattern,
        filePath=p.file_path,
        sourceCode=p.source_code,
        githubUrl=p.github_url,
    )


def knowledge_fields(record: Record) -> dict[str, str]:
    k = record.knowledge
    return _texts(
        documentation=k.documentation,
        triggerScenarios=k.trigger_scenarios,
        commonSituations=k.common_situations,
        solutions="\n".join(k.solutions),
        exampleFix=k.example_fix,
        validationCode=k.validation_code,
        typeGuard=k.type_guard,
        tryCatchPattern=k.try_catch_pattern,
        preventionTips="\n".join(k.prevention_tips),
        tags="\n".join(k.tags),
        backgroundTag=k.background_tag,
    )


def score_half(
    fields: Mapping[str, str], weights: Mapping[str, float], among: Iterable[RuleInfo] | None = None
) -> dict[str, float]:
    """Each rule's score for one half (rules with no mention are left out), in registry order:
    per field, the field's weight x each mentioned API's weight x its capped count."""
    registry = rules() if among is None else tuple(among)
    index = _api_index(None if among is None else registry)
    scores: dict[int, float] = {}  # by API list (rules with the same APIs score the same)
    for name, text in fields.items():
        weight = weights.get(name, 0.0)
        if not weight:
            continue
        counts: dict[tuple[int, int], int] = {}  # (API list, API) -> mentions in this field
        for token, n in _identifiers(text).items():
            for key in index.by_form.get(token, ()):
                counts[key] = counts.get(key, 0) + n
        for key, n in counts.items():
            added = weight * index.weights[key] * min(n, MAX_COUNT)
            scores[key[0]] = scores.get(key[0], 0.0) + added
    found = sorted(i for group, score in scores.items() if score > 0 for i in index.rules_of[group])
    return {registry[i].id: scores[index.group_of[i]] for i in found}


class _ApiIndex(NamedTuple):
    """The registry's APIs for scoring: rules with the same API list form one group."""

    by_form: dict[str, tuple[tuple[int, int], ...]]  # spelling -> (group, API) pairs
    weights: dict[tuple[int, int], float]  # (group, API) -> the API's weight
    group_of: list[int]  # rule (registry position) -> its group
    rules_of: list[list[int]]  # group -> its rules


@per_rules
def _api_index(registry: tuple[RuleInfo, ...]) -> _ApiIndex:
    """For each spelling of an API, the (group, API) pairs it counts for (a spelling counts for
    the first API of a rule that has it), and each pair's weight. Rules derived from tensor
    methods all list `Tensor`: grouped, a text that names it scores them once."""
    groups: dict[tuple[tuple[str, tuple[str, ...]], ...], int] = {}
    group_of: list[int] = []
    rules_of: list[list[int]] = []
    by_form: dict[str, list[tuple[int, int]]] = {}
    weights: dict[tuple[int, int], float] = {}
    for i, rule in enumerate(registry):
        forms = _api_forms(rule.apis)
        group = groups.get(forms)
        if group is None:
            group = groups[forms] = len(rules_of)
            rules_of.append([])
            for j, (api, spellings) in enumerate(forms):
                weights[(group, j)] = api_weight(api)
                for form in spellings:
                    by_form.setdefault(form, []).append((group, j))
        group_of.append(group)
        rules_of[group].append(i)
    return _ApiIndex({f: tuple(k) for f, k in by_form.items()}, weights, group_of, rules_of)


def pick(scores: Mapping[str, float], among: Iterable[RuleInfo] | None = None) -> tuple[str, ...]:
    """The dominant rule ids, best first; ties keep the rule registry's order."""
    if not scores:
        return ()
    floor = max(MIN_SCORE, DOMINANCE * max(scores.values()))
    order = {rule.id: i for i, rule in enumerate(rules() if among is None else among)}
    kept = [rid for rid, score in scores.items() if score >= floor]
    return tuple(sorted(kept, key=lambda rid: (-scores[rid], order.get(rid, len(order)))))


@lru_cache(maxsize=4096)
def _identifiers(text: str) -> dict[str, int]:
    """How often each whole identifier occurs in `text` (one pass; every rule is scored from
    it, where a search per rule made binding cost records x rules passes)."""
    counts: dict[str, int] = {}
    for word in _IDENTIFIER.findall(text):
        counts[word] = counts.get(word, 0) + 1
    return counts


_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


@lru_cache(maxsize=1024)
def _api_forms(apis: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each API with the spellings that count for it (a spelling counts for the first API
    that has it)."""
    seen: set[str] = set()
    out = []
    for api in apis:
        forms = tuple(f for f in dict.fromkeys((api, snake_case(api))) if f not in seen)
        seen.update(forms)
        out.append((api, forms))
    return tuple(out)


def _texts(**fields: str | None) -> dict[str, str]:
    return {name: text for name, text in fields.items() if text}

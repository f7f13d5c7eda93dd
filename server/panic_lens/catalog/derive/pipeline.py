"""The stages in order: a record's site (stage 1), its chain lifted to the public calls
(stage 2), each call's condition (stage 3), the rule written (stage 4). `Deriver` derives
each panic site once per guards index and config table, and lets records of one site share
the rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from panic_lens.catalog.derive.conditions import cel, result_rank, tensor_ranks
from panic_lens.catalog.derive.lift import (
    MAX_ENTRIES,
    initial_chain,
    module_fields,
    public_entries,
)
from panic_lens.catalog.derive.model import (
    CONSTRUCT,
    NOT_PUBLIC,
    NOT_VISIBLE,
    Derived,
    Entry,
    NotDerived,
    Site,
    Unmapped,
)
from panic_lens.catalog.derive.naming import rule_slug, unique_id
from panic_lens.catalog.derive.rule import at_config_init, derived_toml, merge_same_calls, reads
from panic_lens.catalog.derive.site import (
    check_functions,
    find_site,
    pattern_siblings,
    same_check,
    same_message,
)
from panic_lens.catalog.derive.translate import Scope, Translator
from panic_lens.catalog.model import Record
from panic_lens.catalog.sites import squash
from panic_lens.rules.language.configs import ConfigTable
from panic_lens.rules.language.spec import BurnSite, RuleFileError, parse_rule


def derive(
    record: Record,
    guards: dict[str, Any],
    configs: ConfigTable,
    rule_id: str | None = None,
) -> Derived | NotDerived:
    """The rule checking `record`'s panic at the public calls that reach it, or why not."""
    return Deriver(guards, configs).derive(record, rule_id)


@dataclass(frozen=True, slots=True)
class AtSite:
    """A panic site's derivation, before a record's id (and message) is written in."""

    entries: list[Entry]
    fires: str | None
    fn: dict[str, Any]
    panic: dict[str, Any]
    burn_message: str | None
    where: str  # `file:line`
    # burn's other panics with the message (function, panic): the rule names their sites too
    more_sites: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = ()
    # the messages of the other panics the record is about (`also`), said after burn's
    other_messages: tuple[str, ...] = ()


class Deriver:
    """Deriving records against one guards index and config table. Each panic site is derived
    once (the walk up the call graph and the translation are the site's, not the record's);
    with `share`, records that resolve to one site and would write the same rule (burn's
    message, or where burn's panic has none an errorMessage the same but for its values,
    `_values_out`) share the first one's."""

    def __init__(
        self, guards: dict[str, Any], configs: ConfigTable, hand_sites: tuple[BurnSite, ...] = ()
    ) -> None:
        self.guards = guards
        # burn's panics a hand-written rule checks: a derived rule of another site with the
        # same message leaves them to it (two rules on one panic flag each call twice)
        self.hand_sites = hand_sites
        self.functions: dict[str, Any] = guards.get("functions", {})
        self.configs = configs
        self.sites: dict[tuple[Site, tuple[Site, ...]], AtSite | NotDerived] = {}
        self.rules: dict[tuple[Site, tuple[Site, ...], str | None], Derived | NotDerived] = {}
        self.ids: dict[str, str] = {}  # rule ids given, and the panic each names

    def _at(self, site: Site, also: tuple[Site, ...] = ()) -> AtSite | NotDerived:
        """`also`: the record's other panics (`pattern_siblings`), checked by the rule too."""
        at = self.sites.get((site, also))
        if at is None:
            impls = self.guards.get("impls") or {}
            at = self.sites[(site, also)] = derive_site(
                site, self.functions, self.configs, impls, self._unchecked, also
            )
        return at

    def _unchecked(self, sites: list[Site]) -> list[Site]:
        """`sites` but those a hand-written rule checks (same file, and the same line or
        burn's message)."""
        if not self.hand_sites:
            return sites
        return [s for s in sites if not _checked_by(self.hand_sites, s, self.functions)]

    def derive(
        self, record: Record, rule_id: str | None = None, share: bool = False
    ) -> Derived | NotDerived:
        site = find_site(record, self.guards)
        if isinstance(site, NotDerived):
            return site
        own = site
        also = tuple(self._unchecked(pattern_siblings(record, site, self.functions)))
        if share:  # burn's panics of one message in one crate are one rule: the first one's
            siblings = self._unchecked(same_message(site, self.functions))
            site = min([site, *siblings], key=lambda s: (s.fn_key, s.index, s.via or ()))
        at = self._at(site, also)
        if isinstance(at, NotDerived) and site != own:
            site, at = own, self._at(own, also)  # why not, said of the record's own site
        if isinstance(at, NotDerived):
            return at
        if not share:
            return site_rule(record, at, rule_id)
        key = (site, also, None if at.burn_message else _values_out(record.panic.error_message))
        found = self.rules.get(key)
        if found is None:
            if rule_id is None:  # one id per panic (and per message, where burn's has none)
                slug = rule_slug(at.entries, at.burn_message or record.panic.error_message)
                rule_id = unique_id(slug, f"{at.where} {key[2]}", self.ids)
            found = self.rules[key] = site_rule(record, at, rule_id)
        return found


# What a record's message says about its panic, without the values it was raised with
_VALUES = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _values_out(message: str | None) -> str | None:
    """`message` with its numbers and quoted values made `{}`: records of one panic site
    whose messages differ only in the values raised (`dimension 5` / `dimension 7`, the
    operation's name) share a rule."""
    return _VALUES.sub("{}", message) if message else message


def _checked_by(hand_sites: tuple[BurnSite, ...], site: Site, functions: dict[str, Any]) -> bool:
    fn, panic = _written_at(site, functions)
    message = squash(str(panic.get("message") or ""))
    return any(
        hand.file == fn["file"]
        and (hand.line == panic["line"] or (bool(hand.message) and squash(hand.message) in message))
        for hand in hand_sites
    )


def derive_site(
    site: Site,
    functions: dict[str, Any],
    configs: ConfigTable,
    impls: dict[str, list[str]] | None = None,
    keep: Callable[[list[Site]], list[Site]] = list,
    also: tuple[Site, ...] = (),
) -> AtSite | NotDerived:
    """`keep`: of burn's other panics with the message, those the rule names too; `also`:
    other panics the record is about (with their own messages), checked and named too."""
    fn = functions[site.fn_key]
    panic = fn["panics"][site.index]
    via = site.via[:2] if site.via is not None else None
    if site.via is not None:  # the panic is where its message is written: at the call
        fn = functions[site.via[0]]
        panic = {"kind": "expect", "line": site.via[1], "path": [], "message": site.via[2]}
    where_text = f"{fn['file']}:{panic['line']}"
    try:
        start = initial_chain(site, functions)
    except Unmapped as exc:
        return NotDerived(f"{where_text}: {exc}", CONSTRUCT)
    entries, stops = public_entries(start, functions, configs, impls, via)
    # the check's other callers, and burn's other panics with the message, raise the same panic
    siblings = [
        *keep(same_message(site, functions)),
        *[s for extra in also for s in (extra, *keep(same_message(extra, functions)))],
    ]
    for other in [*same_check(site, functions), *siblings]:
        if len({call for _, call, _ in entries}) >= MAX_ENTRIES * 4:
            break  # each site has its own MAX_ENTRIES, and all of them together four times it
        try:
            more, _ = public_entries(
                initial_chain(other, functions), functions, configs, impls,
                other.via[:2] if other.via is not None else None,
            )  # fmt: skip
        except Unmapped:
            continue  # a caller whose arguments are not read: its calls are left unchecked
        entries += more
    if not entries:
        why = "; ".join(dict.fromkeys(stops)) or "no public caller"
        return NotDerived(f"{where_text}: {why}", NOT_PUBLIC)
    built: list[Entry] = []
    problems: list[str] = []
    for chain, call, kind in entries:
        entry_fn = functions[chain.fn]
        params = [p[0] for p in entry_fn["params"]]
        # `D` of a Tensor method with a receiver is the receiver's rank (not `cat`'s or `stack`'s)
        tensor_self = kind == "method" and entry_fn["owner"] == "Tensor" and bool(entry_fn["self"])
        fields = module_fields(call, kind, configs, functions)
        ranks = tensor_ranks(entry_fn["params"])
        result = result_rank(entry_fn)
        if result is not None and not (tensor_self and result == "D"):
            ranks.setdefault(result, "result.rank")
        translator = Translator(Scope(kind, params, tensor_self, fields, ranks))
        try:
            condition = cel(chain.items, translator, {})
        except Unmapped as exc:
            problems.append(f"{call}: {exc}")
            continue
        holes: list[str | None] = []
        for hole in chain.holes:
            try:
                holes.append(translator.expr(hole))
            except Unmapped:
                holes.append(None)
        if condition and not reads(condition, {"config", "receiver", "result", *params}):
            problems.append(f"{call}: the condition reads no value a call shows")
            continue
        generics = entry_fn.get("generics") or []
        position = generics.index(result) if result in generics else None
        built.append(Entry(call, kind, params, condition, holes, position))
    fires = at_config_init(built, configs)
    built = merge_same_calls(built)
    if not built:
        reason = "; ".join(dict.fromkeys(problems))
        kind = NOT_VISIBLE if all("reads no value" in p for p in problems) else CONSTRUCT
        return NotDerived(f"{where_text}: {reason}", kind)
    burn_message = panic.get("message")
    if site.check is not None:
        burn_message = check_functions(functions)[site.check[0]]["panics"][site.check[1]]["message"]
    others = tuple(_written_at(other, functions) for other in siblings)
    messages = tuple(
        dict.fromkeys(str(functions[a.fn_key]["panics"][a.index]["message"]) for a in also)
    )
    return AtSite(built, fires, fn, panic, burn_message, where_text, others, messages)


def _written_at(site: Site, functions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The function and panic a record of `site` quotes (for a message a caller passes: the
    call)."""
    if site.via is not None:
        panic = {"kind": "expect", "line": site.via[1], "path": [], "message": site.via[2]}
        return functions[site.via[0]], panic
    fn = functions[site.fn_key]
    return fn, fn["panics"][site.index]


def site_rule(record: Record, at: AtSite, rule_id: str | None) -> Derived | NotDerived:
    """The site's rule, written for `record` (its id; its message where burn's has none)."""
    text = derived_toml(
        record, at.entries, at.fn, at.panic,
        rule_id or rule_slug(at.entries, at.burn_message or record.panic.error_message), at.fires,
        at.burn_message, at.more_sites, at.other_messages,
    )  # fmt: skip
    try:
        spec = parse_rule(text.encode(), f"<derived from record {record.id}>")
    except RuleFileError as exc:
        return NotDerived(f"{at.where}: the derived rule does not read: {exc}", CONSTRUCT)
    return Derived(spec, text, at.where)

"""What a rule file needs to run, computed once per rule (`Plan`): the names its condition may
read, its calls by name and the paths each resolves to, what a method call's receiver must be,
and the conjuncts of its condition that its arguments alone decide (`detect._bind`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from panic_lens.rules.language import api, configs
from panic_lens.rules.language.conditions import conjuncts
from panic_lens.rules.language.spec import BUILTIN_NAMES, RuleSpec, Where
from panic_lens.rules.language.viable import with_lets
from panic_lens.rust.burn_api import canonical

_TENSOR = "burn::tensor::Tensor"


@dataclass(frozen=True, slots=True)
class Plan:
    """What a rule needs, computed once per rule: its names and its calls by name."""

    names: tuple[str, ...]
    by_name: dict[str, tuple[Where, ...]]
    targets: dict[Where, frozenset[str]]  # the paths a `where` call resolves to
    owners: dict[Where, frozenset[str]]  # the type paths of a method-like `where`
    reads: frozenset[str]  # the top-level names and `config.x` fields the condition reads
    free: bool  # some `where` is a free function (which a `use .. as` may rename)
    # what a method call's receiver must be for each method-like `where`: ("config", path)
    # of a config it builds, ("module", path) of the config a module was made from, or
    # ("type", None) of its type (one of `owners`)
    receivers: dict[Where, tuple[str, str | None]]
    # the condition's top-level conjuncts that read only a `where`'s arguments (and its
    # config), each with the arguments it reads: when one of them is not true at a call,
    # neither is the condition, whatever the other values are (`_bind`)
    arg_conjuncts: dict[Where, tuple[tuple[str, tuple[str, ...]], ...]]
    # the condition as each `where`'s lets make it (`viable.with_lets`): what `viable.may_hold`
    # reads to tell, from the arguments alone, that the condition cannot be true at a call
    unfolded: dict[Where, str | None]
    # the names the rule takes the `size()` of: lists, never a tensor (whose value is a map of
    # its rank and dims, whose size would count those keys)
    sized: frozenset[str] = frozenset()


def plan_of(spec: RuleSpec) -> Plan:
    """The rule's plan, made once per spec object (looked up by identity: hashing a spec
    walks all of it, for every rule on every file)."""
    found = _PLANS.get(id(spec))
    if found is None or found[0] is not spec:
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        found = _PLANS[id(spec)] = (spec, _make_plan(spec))
    return found[1]


_PLANS_KEPT = 512


_PLANS: dict[int, tuple[RuleSpec, Plan]] = {}  # the spec is held, so its id is not reused


def _make_plan(spec: RuleSpec) -> Plan:
    names = set(BUILTIN_NAMES)
    by_name: dict[str, list[Where]] = {}
    targets: dict[Where, frozenset[str]] = {}
    owners: dict[Where, frozenset[str]] = {}
    receivers: dict[Where, tuple[str, str | None]] = {}
    for where in spec.wheres:
        names |= {a for a in where.args if a != "_"} | {n for n, _ in where.lets}
        by_name.setdefault(where.name, []).append(where)
        owner_paths = _paths_of(where.owner)
        if where.method_like:
            receivers[where] = _receiver_kind(where.owner)
            # only a trait's method has blanket implementors (read from the guards index,
            # which a config's, a module's or a tensor's method need not load)
            if receivers[where][0] == "type" and _TENSOR not in owner_paths:
                owner_paths |= api.blanket_implementors(where.owner, where.name)
        owners[where] = frozenset(owner_paths)
        targets[where] = frozenset(f"{p}::{where.name}" for p in owner_paths) | (
            frozenset() if where.method_like else api.aliases_of(where.call)
        )
    lets = [expr for where in spec.wheres for _, expr in where.lets]
    others = [r.when for r in spec.severity_when] + [f.with_ for f in spec.fixes]
    text = " ".join(filter(None, (spec.condition, spec.message, *lets, *others)))
    reads = set(re.findall(r"\b(config\.\w+|receiver|[A-Za-z_]\w*)\b", text))
    arg_conjuncts = {where: _arg_conjuncts(spec.condition, where) for where in spec.wheres}
    unfolded = {
        where: with_lets(spec.condition, where.lets) if spec.condition is not None else None
        for where in spec.wheres
    }
    sized = frozenset(re.findall(r"\bsize\(\s*([A-Za-z_]\w*)\s*\)", text))
    return Plan(tuple(sorted(names)), {k: tuple(v) for k, v in by_name.items()}, targets,
                 owners, frozenset(reads), any(not w.method_like for w in spec.wheres),
                 receivers, arg_conjuncts, unfolded, sized)  # fmt: skip


def _arg_conjuncts(condition: str | None, where: Where) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The conjuncts of `condition` that name, as words, none of the values a call gives
    after its arguments and config (the receiver, the result, the context and the `where`'s
    lets), with the arguments each names: evaluated over those arguments and the config,
    such a conjunct has the value it has at the call."""
    if condition is None:
        return ()
    later = {"receiver", "result", "context", *(name for name, _ in where.lets)}
    out = []
    for part in conjuncts(condition):
        words = set(re.findall(r"[A-Za-z_]\w*", part))
        if not later & words:
            out.append((part, tuple(a for a in where.args if a != "_" and a in words)))
    return tuple(out)


def _receiver_kind(owner: str) -> tuple[str, str | None]:
    config = configs.table().config(owner)
    if config is not None:
        return "config", config.path
    module_of = configs.config_of_module(owner)
    return ("module", module_of) if module_of is not None else ("type", None)


def _paths_of(owner: str) -> set[str]:
    """Every path the resolver may give for `owner`: as written, canonical, the config
    table's other names for the same config or module, and the guards index's other names
    for the same type (burn re-exports one in several places)."""
    written = {owner, canonical(owner.split("::")) or owner}
    t = configs.table()
    return written.union(*(t.paths_of(path) for path in written),
                         *(api.aliases_of(path) for path in written))  # fmt: skip

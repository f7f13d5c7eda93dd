"""async-policy-load-record: `Policy::load_record` on burn-rl's AsyncPolicy always panics.

Flags the method form, chains on `AsyncPolicy::new(..)`, typed lets, parameters and fields,
and the UFCS forms; never `p.state().load_record(..)` or other receivers (burn-facts.md §2).
"""

from __future__ import annotations

from collections.abc import Iterator

from panic_lens.model import Finding, HoverFact, Related, Severity
from panic_lens.rules.async_policy_fixes import fixes_for
from panic_lens.rules.meta import ASYNC_POLICY as INFO
from panic_lens.rust.bindings import TypeFact
from panic_lens.rust.facts import CallSite, FileFacts
from panic_lens.rust.syntax import Node, method_call

__all__ = ["INFO", "detect"]

ASYNC_POLICY = "burn::rl::AsyncPolicy"
POLICY = "burn::rl::Policy"
PANIC_022 = (
    "not implemented: Not implemented yet. Please load the record on the inner policy "
    "before creating an async policy."
)
PANIC_021 = "not yet implemented"
_NEW = frozenset({f"{ASYNC_POLICY}::new"})
_CALL_NAMES = frozenset({"load_record", "new"})
_LOAD_RECORD_ASYNC = frozenset({f"{ASYNC_POLICY}::load_record"})
_LOAD_RECORD_TRAIT = frozenset({f"{POLICY}::load_record"})


def detect(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    for site in facts.calls(_CALL_NAMES):
        if site.name == "load_record":
            yield from _load_record(site, facts)
        elif site.name == "new" and site.resolves_to(_NEW) is not None:
            yield _constructor_hover(site, facts)


def policy_receiver(site: CallSite, facts: FileFacts) -> tuple[Node | None, TypeFact] | None:
    """(receiver expression, its AsyncPolicy type fact) when this load_record panics."""
    if site.kind == "method":
        fact = facts.type_of(site.receiver)
        return (site.receiver, fact) if fact and fact.path == ASYNC_POLICY else None
    first = site.args[0] if site.args else None
    if site.kind == "qualified":
        ok = site.self_type == ASYNC_POLICY and site.trait_path in (POLICY, None)
        span = facts.span(site.owner) if site.owner is not None else facts.span(site.node)
        return (first, TypeFact(ASYNC_POLICY, span, "qualified path")) if ok else None
    if site.resolves_to(_LOAD_RECORD_ASYNC) is not None:
        span = facts.span(site.owner) if site.owner is not None else facts.span(site.node)
        return first, TypeFact(ASYNC_POLICY, span, "AsyncPolicy::load_record")
    if site.resolves_to(_LOAD_RECORD_TRAIT) is not None:
        fact = facts.type_of(first)
        return (first, fact) if fact and fact.path == ASYNC_POLICY else None
    return None


def _load_record(site: CallSite, facts: FileFacts) -> Iterator[Finding | HoverFact]:
    found = policy_receiver(site, facts)
    if found is None:
        hover = _state_hover(site, facts)
        if hover is not None:
            yield hover
        return
    receiver, fact = found
    lines = _facts_lines(receiver, fact, facts)
    span = facts.span(site.name_node)
    yield HoverFact(INFO.id, span, f"{ASYNC_POLICY}::load_record", lines, flagged=True)
    yield Finding(
        rule=INFO.id,
        span=span,
        severity=Severity.ERROR,
        message=_message(receiver, fact, facts),
        evidence=(Related(fact.origin, f"the AsyncPolicy: {fact.note}"),),
        fixes=fixes_for(site, receiver, facts),
        facts=lines,
    )


def _message(receiver: Node | None, fact: TypeFact, facts: FileFacts) -> str:
    who = f"`{facts.text(receiver)}`" if receiver is not None else "the receiver"
    return (
        f"load_record on burn's AsyncPolicy always panics ({who} is an AsyncPolicy: "
        f"{fact.note}) with `{_panic_text(facts)}` Load the record on the inner policy "
        "before AsyncPolicy::new, or refresh through the state: "
        "p.update(p.state().load_record(r))."
    )


def _facts_lines(receiver: Node | None, fact: TypeFact, facts: FileFacts) -> tuple[str, ...]:
    who = facts.text(receiver) if receiver is not None else "receiver"
    return (
        f"receiver `{who}` is burn's AsyncPolicy ({fact.note})",
        f"Policy::load_record on AsyncPolicy panics: `{_panic_text(facts)}`",
        "safe: load on the inner policy before wrapping, or p.update(p.state().load_record(r))",
    )


def _panic_text(facts: FileFacts) -> str:
    version = facts.crate.burn_version or ""
    return PANIC_021 if version.startswith(("0.21.", "0.20.", "0.19.")) else PANIC_022


def _state_hover(site: CallSite, facts: FileFacts) -> HoverFact | None:
    """`p.state().load_record(r)` on an AsyncPolicy: the safe PolicyState::load_record."""
    inner = method_call(site.receiver) if site.kind == "method" and site.receiver else None
    if inner is None or facts.text(inner[1]) != "state":
        return None
    fact = facts.type_of(inner[0])
    if fact is None or fact.path != ASYNC_POLICY:
        return None
    lines = (
        f"`{facts.text(inner[0])}` is burn's AsyncPolicy ({fact.note})",
        "PolicyState::load_record borrows the state and does not panic",
    )
    return HoverFact(INFO.id, facts.span(site.name_node), "burn::rl::PolicyState::load_record",
                     lines)  # fmt: skip


def _constructor_hover(site: CallSite, facts: FileFacts) -> HoverFact:
    inner = facts.text(site.args[1]) if len(site.args) > 1 else "the inner policy"
    lines = (
        f"AsyncPolicy::new(autobatch_size, inner_policy) wraps `{inner}` in an inference worker",
        "load_record on the AsyncPolicy panics: load records on the inner policy before this",
    )
    return HoverFact(INFO.id, facts.span(site.name_node), f"{ASYNC_POLICY}::new", lines)

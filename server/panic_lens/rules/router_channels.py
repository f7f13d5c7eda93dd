"""burn-router channels in a file: which `change_client_backend` calls reach the trait default.

A call reaches RouterChannel's default body through a generic `C: RouterChannel`, a qualified
`<C as RouterChannel>::`, `Self::` in an impl without its own override, or a local channel
type whose impl keeps the default. burn's RemoteChannel overrides it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from panic_lens.model import Span
from panic_lens.rust.syntax import Node, ancestors, child_by_field, node_text, span_of

if TYPE_CHECKING:
    from panic_lens.rust.facts import CallSite, FileFacts

CHANNEL = "burn::router::RouterChannel"
METHOD = "change_client_backend"
_TRAIT_METHOD = frozenset({f"{CHANNEL}::{METHOD}"})
OVERRIDING = frozenset({"RemoteChannel"})  # burn-remote's channel has its own body
_GENERIC_SCOPES = frozenset({"function_item", "impl_item", "trait_item"})


@dataclass(frozen=True, slots=True)
class ChannelCall:
    """A `change_client_backend` call on a RouterChannel: which body it reaches, and why."""

    channel: str  # as written
    why: str
    where: Span  # the bound, impl or type that shows it
    default_body: bool  # False: the channel's own override runs


def direct_call_channel(site: CallSite, facts: FileFacts) -> ChannelCall | None:
    """What a direct `change_client_backend` call reaches; None when it is not a channel's."""
    if site.kind == "qualified":
        qualified = (
            site.owner.named_children[0] if site.owner and site.owner.named_children else None
        )
        self_type = child_by_field(qualified, "type")
        if site.trait_path != CHANNEL or self_type is None:
            return None
        return _by_type_name(self_type, site.node, facts, "qualified through RouterChannel")
    if site.resolves_to(_TRAIT_METHOD) is not None:
        return ChannelCall("RouterChannel", "called on the trait itself",
                           facts.span(site.name_node), True)  # fmt: skip
    owner = site.owner
    if owner is None or owner.type not in ("identifier", "type_identifier"):
        return None
    if facts.text(owner) == "Self":
        return _self_in_impl(site, facts)
    return _by_type_name(owner, site.node, facts, "generic channel")


def impls_without_override(facts: FileFacts) -> Iterator[tuple[str, Span]]:
    """`impl RouterChannel for X` blocks of the file that keep the default body (with
    `facts.only`, of that byte range: the re-analysis of one function keeps the others')."""
    if b"RouterChannel" not in facts.src:
        return
    lo, hi = facts.only if facts.only is not None else (0, len(facts.src))
    for impl in _channel_impls(facts, lo, hi):
        name = child_by_field(impl, "type")
        if name is not None and not _overrides(impl, facts):
            yield facts.text(name), span_of(name)


def _channel_impls(facts: FileFacts, lo: int = 0, hi: int | None = None) -> Iterator[Node]:
    """The file's `impl RouterChannel for X` blocks (those inside bytes [lo, hi) when given)."""
    if b"RouterChannel" not in facts.src:
        return
    hi = len(facts.src) if hi is None else hi
    for node in facts.nodes_in("impl", lo, hi):
        if node.end_byte <= hi and _implements_channel(node, facts):
            yield node


def _by_type_name(type_node: Node, at: Node, facts: FileFacts, why: str) -> ChannelCall | None:
    name = facts.text(type_node)
    bound = _generic_bound(name, at, facts)
    if bound is not None:
        return ChannelCall(
            name, f"`{name}: RouterChannel`, a generic channel", span_of(bound), True
        )
    impl = _local_impl(name, facts)
    if impl is not None:
        keeps = not _overrides(impl, facts)
        what = "its impl keeps the default" if keeps else "its impl overrides it"
        return ChannelCall(name, what, span_of(impl), keeps)
    if name in OVERRIDING:
        return ChannelCall(name, "burn-remote's channel overrides it", span_of(type_node), False)
    if facts.resolve(type_node) is None:
        return None
    return ChannelCall(name, why, span_of(type_node), True)


def _self_in_impl(site: CallSite, facts: FileFacts) -> ChannelCall | None:
    root = facts.tree.root_node
    impl = next((a for a in ancestors(site.node, root) if a.type == "impl_item"), None)
    if impl is None or not _implements_channel(impl, facts):
        return None
    type_node = child_by_field(impl, "type")
    name = facts.text(type_node) if type_node is not None else "Self"
    if _overrides(impl, facts):
        return ChannelCall(name, f"`Self` is `{name}`, whose impl overrides it", span_of(impl),
                           False)  # fmt: skip
    return ChannelCall(name, f"`Self` is `{name}`, whose impl keeps the default", span_of(impl),
                       True)  # fmt: skip


def _generic_bound(name: str, at: Node, facts: FileFacts) -> Node | None:
    """The `RouterChannel` bound of the generic parameter `name` visible at `at`, if any."""
    for scope in ancestors(at, facts.tree.root_node):
        if scope.type in _GENERIC_SCOPES:
            for bound in _bounds_of(scope, name, facts):
                if facts.resolve(bound) == CHANNEL:
                    return bound
    return None


def _bounds_of(scope: Node, name: str, facts: FileFacts) -> Iterator[Node]:
    params = child_by_field(scope, "type_parameters")
    for param in params.named_children if params is not None else []:
        pname = child_by_field(param, "name")
        if pname is not None and facts.text(pname) == name:
            yield from _trait_types(child_by_field(param, "bounds"))
    where = next((c for c in scope.named_children if c.type == "where_clause"), None)
    for pred in where.named_children if where is not None else []:
        left = child_by_field(pred, "left")
        if left is not None and facts.text(left) == name:
            yield from _trait_types(child_by_field(pred, "bounds"))


def _trait_types(bounds: Node | None) -> Iterator[Node]:
    for bound in bounds.named_children if bounds is not None else []:
        inner = child_by_field(bound, "type") if bound.type == "generic_type" else bound
        if inner is not None and inner.type in ("type_identifier", "scoped_type_identifier"):
            yield inner


def _implements_channel(impl: Node, facts: FileFacts) -> bool:
    trait = child_by_field(impl, "trait")
    if trait is not None and trait.type == "generic_type":
        trait = child_by_field(trait, "type")
    return trait is not None and facts.resolve(trait) == CHANNEL


def _overrides(impl: Node, facts: FileFacts) -> bool:
    body = child_by_field(impl, "body")
    for item in body.named_children if body is not None else []:
        name = child_by_field(item, "name")
        if item.type == "function_item" and name is not None and facts.text(name) == METHOD:
            return True
    return False


def _local_impl(name: str, facts: FileFacts) -> Node | None:
    """This file's `impl RouterChannel for <name>`, if there is one."""
    for impl in _channel_impls(facts):
        type_node = child_by_field(impl, "type")
        if type_node is not None and node_text(type_node, facts.src) == name:
            return impl
    return None

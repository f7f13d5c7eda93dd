"""burn's types as the guards index needs them (`rust/burn_guards.py` walks the items and hands
them here): each struct's field types, so that a call through a field
(`self.padding.calculate_padding_2d(..)`, `self.inner.forward(..)`) is an edge of the call
graph to the field type's method; the traits each type implements, so that a trait's method
on a public type is an entry point; and blanket impls (`impl<T: Dataset<I>> Windows<I> for
T`), whose methods every implementor of the bounds has.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from panic_lens.rust.syntax import Node

__all__ = ["TypeFacts", "strip_type"]

# Wrappers whose methods are the wrapped type's (Deref): `Ignored<PaddingConfig2d>` is a
# `PaddingConfig2d` to a method call.
_WRAPPERS = frozenset({"Ignored", "Box", "Arc", "Rc"})
_TYPE_ARGS = re.compile(r"^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:\w+::)*(\w+)(?:<(.*)>)?$", re.S)


def strip_type(text: str) -> str | None:
    """The named type a field's type is to a method call: `Linear<B>` -> `Linear`,
    `Ignored<PaddingConfig2d>` -> `PaddingConfig2d`; None for a tuple, array or reference
    to one."""
    found = _TYPE_ARGS.match(text.strip())
    if found is None:
        return None
    name, args = found.group(1), found.group(2)
    if name in _WRAPPERS and args:
        return strip_type(args)
    return name


@dataclass(slots=True)
class TypeFacts:
    """What one walk over burn's items learnt of its types."""

    # struct name -> [(module, {field: type name})] (names repeat across crates)
    fields: dict[str, list[tuple[str, dict[str, str]]]] = field(default_factory=dict)
    # (trait, type, module of the impl) for every `impl Trait for Type`
    impls: list[tuple[str, str, str]] = field(default_factory=list)
    # (file, first line, last line, bound traits) of each `impl<T: Bound> Trait for T`
    blankets: list[tuple[str, int, int, tuple[str, ...]]] = field(default_factory=list)

    def add_struct(self, node: Node, module: str, text: Callable[[Node | None], str]) -> None:
        body = node.child_by_field_name("body")
        if body is None or body.type != "field_declaration_list":
            return
        found: dict[str, str] = {}
        for decl in body.named_children:
            if decl.type != "field_declaration":
                continue
            name = text(decl.child_by_field_name("name"))
            type_ = strip_type(text(decl.child_by_field_name("type")))
            if name and type_:
                found[name] = type_
        if found:
            self.fields.setdefault(text(node.child_by_field_name("name")), []).append(
                (module, found)
            )

    def add_impl(
        self, node: Node, module: str, rel: str, text: Callable[[Node | None], str]
    ) -> None:
        trait_node = node.child_by_field_name("trait")
        type_text = text(node.child_by_field_name("type"))
        if trait_node is None:
            return
        trait = strip_type(text(trait_node)) or ""
        bounds = _bounds_of(node, type_text, text)
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        if bounds is not None:
            self.blankets.append((rel, first, last, bounds))
        else:
            type_ = strip_type(type_text)
            if type_:
                self.impls.append((trait, type_, module))

    def field_type(self, owner: str, module: str, name: str) -> str | None:
        """The type of `owner`'s field `name`, `owner` as seen from `module` (its own crate's
        struct of that name first)."""
        crate = module.split("::")[0]
        defs = self.fields.get(owner, [])
        mine = [d for m, d in defs if m.split("::")[0] == crate] or [d for _, d in defs]
        types = {d[name] for d in mine if name in d}
        return next(iter(types)) if len(types) == 1 else None

    def blanket_bounds(self, fn: dict[str, Any]) -> tuple[str, ...] | None:
        """The traits a blanket impl's method requires of its `self`, None for any other."""
        line = fn["lines"][0]
        for rel, first, last, bounds in self.blankets:
            if rel == fn["file"] and first <= line <= last:
                return bounds
        return None


def _bounds_of(
    node: Node, type_text: str, text: Callable[[Node | None], str]
) -> tuple[str, ...] | None:
    """The traits bounding the impl's type when it is one of the impl's type parameters
    (`impl<T: Dataset<I>> .. for T`, or with a `where T: ..`), else None."""
    params = node.child_by_field_name("type_parameters")
    names: dict[str, list[str]] = {}
    for param in params.named_children if params is not None else ():
        if param.type == "type_parameter":
            name = text(param.child_by_field_name("name"))
            names[name] = _trait_names(param, text)
    if type_text not in names:
        return None
    bounds = list(names[type_text])
    for child in node.named_children:
        if child.type == "where_clause":
            for pred in child.named_children:
                if (
                    pred.type == "where_predicate"
                    and text(pred.child_by_field_name("left")) == type_text
                ):
                    bounds += _trait_names(pred, text)
    return tuple(dict.fromkeys(b for b in bounds if b not in ("Send", "Sync", "Clone", "Sized")))


def _trait_names(node: Node, text: Callable[[Node | None], str]) -> list[str]:
    out: list[str] = []
    for child in node.named_children:
        if child.type == "trait_bounds":
            for bound in child.named_children:
                name = strip_type(text(bound))
                if name:
                    out.append(name)
    return out

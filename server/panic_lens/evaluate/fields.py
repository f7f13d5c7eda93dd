"""`self.field` in a method of the user's own struct: what every struct literal of that type in
its file (`Model { field: .., .. }`, `Self { .. }` in `new` or a config's `init`) gives the
field, when they all agree; and the burn module a field holds (its type and the config it was
built from), so `self.norm.forward(x)` is the forward of the module `init` built.

Honest: a `pub` field (built or changed outside the file), a field assigned anywhere
(`x.field = ..`), a literal with `..base`, or literals that disagree: unknown.
"""

from __future__ import annotations

import re
from typing import Any

from panic_lens.evaluate import scope
from panic_lens.evaluate.state import State
from panic_lens.rust.syntax import Node, child_by_field, nodes_of_kinds

_MAX_SITES = 16  # struct literals of one type read for one field


def field_sites(expr: Node, st: State) -> list[tuple[Node, Node]] | None:
    """(value expression, struct literal) of each literal of `self`'s type that sets the field
    `expr` (`self.f`) reads; None when the field's value cannot be pinned down that way."""
    unit = st.unit
    base, field = child_by_field(expr, "value"), child_by_field(expr, "field")
    if base is None or base.type != "self" or field is None:
        return None
    name = unit.text(field)
    impl = scope._enclosing_impl(expr, unit)
    type_name = scope._base_name(child_by_field(impl, "type"), unit) if impl is not None else None
    if impl is None or type_name is None or not _private_field(st, type_name, name, impl):
        return None
    if re.search(rb"\.\s*" + re.escape(name.encode()) + rb"\s*(?:<<|>>|[-+*/%&|^])?=(?!=)",
                 unit.src):  # fmt: skip
        return None  # assigned somewhere: not only what the literals gave
    out = []
    for literal in _literals(unit, type_name, st):
        value = _initializer(literal, name, unit)
        if value is None:
            return None
        out.append((value, literal))
    return out if 0 < len(out) <= _MAX_SITES else None


def _private_field(st: State, type_name: str, name: str, at: Node) -> bool:
    unit = st.unit
    item = unit.imports.local_item(type_name, at)
    body = child_by_field(item, "body") if item is not None and item.type == "struct_item" else None
    if body is not None and item is not None and _is_config_memo(item, st):
        return False  # `#[derive(Config)]`: `new`, its setters and `Config::load` set it too
    for decl in body.named_children if body is not None else ():
        ident = child_by_field(decl, "name")
        if decl.type == "field_declaration" and ident is not None and unit.text(ident) == name:
            return not any(c.type == "visibility_modifier" for c in decl.children)
    return False


def derives(item: Node, unit: scope.Unit) -> frozenset[str]:
    """The paths an item's `#[derive(..)]` attributes name, as written without spaces
    (`Config`, `burn::config::Config`), in any order and over several attributes."""
    found: set[str] = set()
    node = item.prev_named_sibling
    while node is not None and node.type in ("attribute_item", "line_comment", "block_comment"):
        inner = node.named_children[0] if node.type == "attribute_item" else None
        if inner is not None and inner.type == "attribute" and inner.named_children:
            head = unit.text(inner.named_children[0]).replace(" ", "")
            args = child_by_field(inner, "arguments")
            if head == "derive" and args is not None:
                text = unit.text(args).strip()[1:-1]
                found.update("".join(p.split()) for p in text.split(",") if p.strip())
        node = node.prev_named_sibling
    return frozenset(found)


def is_config(item: Node, unit: scope.Unit) -> bool:
    """A struct with `#[derive(Config)]` (burn's, or another named so): its values are built by
    the derive's `new` and setters, not only by the literals the file writes."""
    return item.type == "struct_item" and "Config" in {
        p.rsplit("::", 1)[-1] for p in derives(item, unit)
    }


def _is_config_memo(item: Node, st: State) -> bool:
    key = ("evaluate", "is-config", item.id)
    found = st.memo.get(key)
    if found is None:
        found = st.memo[key] = is_config(item, st.unit)
    return bool(found)


def method_owner(fn: Node, st: State) -> scope.Item | None:
    """The struct of the crate whose impl the method `fn` (one with `self`) is in, when that
    struct's values may be known (`Fields`: a `#[derive(Config)]` struct); None otherwise.
    Looked up once per method."""
    key = ("evaluate", "method-owner", fn.id)
    if key in st.memo:
        found: scope.Item | None = st.memo[key]
        return found
    found = None
    holder = fn.parent.parent if fn.parent is not None else None  # impl > body > fn
    params = child_by_field(fn, "parameters")
    if (
        b"Config" in st.unit.src
        and holder is not None
        and holder.type == "impl_item"
        and child_by_field(holder, "trait") is None
        and params is not None
        and any(p.type == "self_parameter" for p in params.named_children)
    ):
        kind = child_by_field(holder, "type")
        while kind is not None and kind.type == "generic_type":
            kind = child_by_field(kind, "type")
        item = st.item_at(kind) if kind is not None else None
        if item is not None and is_config(item.node, item.unit):
            found = item
    st.memo[key] = found
    return found


def _literals(unit: scope.Unit, type_name: str, st: State) -> list[Node]:
    """The struct literals of the type in the file: `Type { .. }`, and `Self { .. }` inside an
    impl of it. Found by one query of the file, when first asked."""
    key = ("evaluate", "literals")
    found: dict[str, list[Node]] | None = st.memo.get(key)
    if found is None:
        found = st.memo[key] = {}
        root = unit.root
        for node in nodes_of_kinds(root, _STRUCT_LITERAL, root.start_byte, root.end_byte):
            name = child_by_field(node, "name")
            text = unit.text(name).rsplit("::", 1)[-1] if name is not None else ""
            if text == "Self":
                impl = scope._enclosing_impl(node, unit)
                owner = child_by_field(impl, "type") if impl is not None else None
                text = scope._base_name(owner, unit) or ""
            found.setdefault(text, []).append(node)
    return found.get(type_name, [])


_STRUCT_LITERAL = frozenset({"struct_expression"})


def _initializer(literal: Node, name: str, unit: scope.Unit) -> Node | None:
    """What the literal itself sets the field to (None under `..rest`: not read here)."""
    found, rest = initializer(literal, name, unit)
    return found if rest is None else None


def initializer(literal: Node, name: str, unit: scope.Unit) -> tuple[Node | None, Node | None]:
    """(the expression a struct literal gives the field `name`, its `..rest` when it sets no
    such field); a shorthand field (`Dims { groups }`) gives its name's expression."""
    body = child_by_field(literal, "body")
    for item in body.named_children if body is not None else ():
        if item.type == "field_initializer":
            field = child_by_field(item, "field")
            if field is not None and unit.text(field) == name:
                return child_by_field(item, "value"), None
        elif item.type == "shorthand_field_initializer" and unit.text(item) == name:
            return (item.named_children[0] if item.named_children else None), None
        elif item.type == "base_field_initializer" and item.named_children:
            return None, item.named_children[0]  # `..rest` comes last
    return None, None


def agreed(results: list[Any], key: Any = lambda r: repr(getattr(r, "value", r))) -> Any:
    """The first answer when all sites gave the same (by `key`), else None."""
    if not results or any(r is None for r in results):
        return None
    first = key(results[0])
    return results[0] if all(key(r) == first for r in results[1:]) else None

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
from panic_lens.evaluate.literals import _INTS, at, block_tail
from panic_lens.evaluate.state import Fields, Frame, State, Value, register, state_for
from panic_lens.rust.syntax import (
    Node,
    child_by_field,
    method_call,
    nodes_of_kinds,
    span_of,
    struct_literal_parts,
)

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
    if assigned(name, st):
        return None  # assigned somewhere: not only what the literals gave
    out = []
    for literal in _literals(unit, type_name, st):
        value = _initializer(literal, name, unit)
        if value is None:
            return None
        out.append((value, literal))
    return out if 0 < len(out) <= _MAX_SITES else None


def assigned(name: str, st: State) -> bool:
    """Whether the file assigns a field of that name anywhere (`x.name = ..`, `x.name += ..`);
    looked for once per name."""
    key = ("evaluate", "field-assigned", name)
    found = st.memo.get(key)
    if found is None:
        pattern = rb"\.\s*" + re.escape(name.encode()) + rb"\s*(?:<<|>>|[-+*/%&|^])?=(?!=)"
        found = st.memo[key] = re.search(pattern, st.unit.src) is not None
    return bool(found)


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


_PLAIN = frozenset(
    {"usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
     "f32", "f64", "bool", "char", "String", "str"}
)  # fmt: skip
_PLAIN_WORD = re.compile(r"[A-Za-z_]\w*")


def plain_data(item: Node, unit: scope.Unit) -> bool:
    """A struct whose named fields are all plain values (numbers, bools, strings, enums of the
    file whose variants hold nothing, and `Option`s, arrays, tuples and references of those):
    a hand-written config
    (`struct PpoConfig { clip: f32, .. }` with `impl Default`), whose value its literal or
    constructor gives whole; no module or tensor lives in it."""
    body = child_by_field(item, "body") if item.type == "struct_item" else None
    if body is None or body.type != "field_declaration_list":
        return False
    kinds = [child_by_field(d, "type") for d in body.named_children
             if d.type == "field_declaration"]  # fmt: skip
    if not kinds or any(k is None for k in kinds):
        return False
    words = {w for k in kinds if k is not None for w in _PLAIN_WORD.findall(unit.text(k))}
    return all(w in _PLAIN or w == "Option" or _unit_enum(w, item, unit) for w in words)


def _unit_enum(name: str, at: Node, unit: scope.Unit) -> bool:
    """An enum of the file whose variants hold nothing (`enum Size { Tiny, Base }`): a plain
    value, its variant's name."""
    item = unit.imports.local_item(name, at)
    body = child_by_field(item, "body") if item is not None and item.type == "enum_item" else None
    if body is None:
        return False
    variants = [v for v in body.named_children if v.type == "enum_variant"]
    return bool(variants) and all(child_by_field(v, "body") is None for v in variants)


def _is_config_memo(item: Node, st: State) -> bool:
    key = ("evaluate", "is-config", item.id)
    found = st.memo.get(key)
    if found is None:
        found = st.memo[key] = is_config(item, st.unit)
    return bool(found)


def method_owner(fn: Node, st: State) -> scope.Item | None:
    """The struct of the crate whose inherent impl the method `fn` (one with `self`) is in:
    its values may be known (`Fields`: a `#[derive(Config)]` struct built by `X::new(..)`, a
    literal of any struct of the crate); None otherwise. Looked up once per method."""
    key = ("evaluate", "method-owner", fn.id)
    if key in st.memo:
        found: scope.Item | None = st.memo[key]
        return found
    found = None
    holder = fn.parent.parent if fn.parent is not None else None  # impl > body > fn
    params = child_by_field(fn, "parameters")
    if (
        holder is not None
        and holder.type == "impl_item"
        and child_by_field(holder, "trait") is None
        and params is not None
        and any(p.type == "self_parameter" for p in params.named_children)
    ):
        kind = child_by_field(holder, "type")
        while kind is not None and kind.type == "generic_type":
            kind = child_by_field(kind, "type")
        item = st.item_at(kind) if kind is not None else None
        if item is not None and item.node.type == "struct_item":
            found = item
    st.memo[key] = found
    return found


def enum_variants_of_method(fn: Node, st: State) -> frozenset[str]:
    """The variant names of the enum of the crate whose inherent impl the method `fn` (one
    with `self`) is in; empty for any other function."""
    holder = fn.parent.parent if fn.parent is not None else None  # impl > body > fn
    params = child_by_field(fn, "parameters")
    if holder is None or holder.type != "impl_item" or child_by_field(holder, "trait"):
        return frozenset()
    if params is None or not any(p.type == "self_parameter" for p in params.named_children):
        return frozenset()
    kind = child_by_field(holder, "type")
    item = st.item_at(kind) if kind is not None else None
    body = child_by_field(item.node, "body") if item is not None else None
    if item is None or item.node.type != "enum_item" or body is None:
        return frozenset()
    names = [child_by_field(v, "name") for v in body.named_children if v.type == "enum_variant"]
    return frozenset(item.unit.text(n) for n in names if n is not None)


def struct_literal_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """A literal of a struct of the crate that is no config (`Vae { latent_dim: self.latent_dim,
    .. }`): the fields whose values are known (`Fields`), written or from a `..base` of the same
    struct, so that a method called on the value knows `self`'s fields; None for another
    struct or when no field is known."""
    name = child_by_field(node, "name")
    if node.type != "struct_expression" or name is None:
        return None
    item = struct_named(_self_type(name, st.unit), st.unit, st)  # `Self { .. }` in its impl
    if item is None or item.node.type != "struct_item" or is_config(item.node, item.unit):
        return None
    written, base = struct_literal_parts(node, st.unit.text)
    sources: dict[str, Value] = {}
    built: dict[str, tuple[Node, Frame]] = {}
    if base is not None and base.type != "base_field_initializer":
        inner = _default_of(item, st, depth) if _is_default(base, st) else None
        inner = inner or st.value(base, frame, depth + 1)
        if inner is not None and isinstance(inner.value, Fields) and _same(inner.value, item):
            sources.update(inner.value.sources)
            built.update(inner.value.built)
    for field, expr in written.items():
        known = st.value(expr, frame, depth + 1) if expr is not None else None
        sources.pop(field, None)
        built.pop(field, None)
        if known is not None:
            sources[field] = known
        elif expr is not None and expr.type == "call_expression" and frame.args:
            built[field] = (expr, frame)  # a module built here: its config read in this frame
    if not sources and not built:
        return None
    text = " ".join(st.unit.text(name).split())
    return Value(Fields(item, sources, built), span_of(node), None, f"{text} {{ .. }}",
                 st.unit.path, None, (f"{text} {{ .. }} at {at(node)}",))  # fmt: skip


_DEFAULT_CALLS = frozenset({"Default::default", "std::default::Default::default",
                            "core::default::Default::default", "Self::default"})  # fmt: skip


def _is_default(base: Node, st: State) -> bool:
    """`..Default::default()` (or `..Self::default()`) in a literal: the struct's own default."""
    callee = child_by_field(base, "function") if base.type == "call_expression" else None
    args = child_by_field(base, "arguments")
    return (
        callee is not None
        and st.unit.text(callee).replace(" ", "") in _DEFAULT_CALLS
        and args is not None
        and not args.named_children
    )


def _default_of(item: scope.Item, st: State, depth: int) -> Value | None:
    """The value the struct's `impl Default` returns (its `default`'s tail), in its file; its
    `#[derive(Default)]`'s (`derived_default`) when it has no impl."""
    unit = item.unit
    name = child_by_field(item.node, "name")
    type_name = unit.text(name) if name is not None else None
    for impl in scope._impls(unit):
        trait = child_by_field(impl, "trait")
        if trait is None or unit.text(trait).rsplit("::", 1)[-1] != "Default":
            continue
        if scope._base_name(child_by_field(impl, "type"), unit) != type_name:
            continue
        body = child_by_field(impl, "body")
        for fn in body.named_children if body is not None else ():
            fn_body = child_by_field(fn, "body") if fn.type == "function_item" else None
            tail = block_tail(fn_body) if fn_body is not None else None
            if tail is not None:
                owner = state_for(unit, st)
                return owner.value(tail, _NO_CALL, depth + 1)
    return derived_default(item, st)


_NO_CALL = Frame()  # `default` is read where no call is being followed


def derived_default(item: scope.Item, st: State) -> Value | None:
    """`X::default()` of a struct of the crate with `#[derive(Default)]`: each field whose type
    Rust defaults without running the user's code (an `Option` to None, an integer to 0, a
    float to 0.0, a bool to false, a `String` to ""); a field of another type is not known.
    None without the derive, or when no field is known."""
    node, unit = item.node, item.unit
    body = child_by_field(node, "body") if node.type == "struct_item" else None
    if body is None or body.type != "field_declaration_list":
        return None
    if "Default" not in {p.rsplit("::", 1)[-1] for p in derives(node, unit)}:
        return None
    sources: dict[str, Value] = {}
    for declared in body.named_children:
        name, kind = child_by_field(declared, "name"), child_by_field(declared, "type")
        if declared.type != "field_declaration" or name is None or kind is None:
            continue
        text = unit.text(kind).replace(" ", "")
        if text.startswith(("Option<", "std::option::Option<", "core::option::Option<")):
            default: Any = None
        elif text in _INTS:
            default = 0
        elif text in ("f32", "f64"):
            default = 0.0
        elif text == "bool":
            default = False
        elif text == "String":
            default = ""
        else:
            continue
        note = f"{unit.text(name)}: {text}'s default"
        sources[unit.text(name)] = Value(default, span_of(declared), None, note, unit.path)
    if not sources:
        return None
    title = unit.text(child_by_field(node, "name") or node)
    return Value(Fields(item, sources, {}), span_of(node), None, f"{title}::default()",
                 unit.path, None, (f"{title}::default() (derived) at {at(node)}",))  # fmt: skip


def own_struct(value: Fields) -> bool:
    """A struct value built by `struct_literal_value` (of a struct that is no config)."""
    return not is_config(value.owner.node, value.owner.unit)


def _same(fields: Fields, item: scope.Item) -> bool:
    owner = fields.owner
    return owner.node.id == item.node.id and owner.unit is item.unit


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


# What the code declares a value's type to be: a parameter's or a `let x: T`'s type, `self`'s
# (the impl's type), a field's as its struct declares it; so that a method called on the value
# is its type's and a field read through it has the field's type.

_TYPED = ("identifier", "self", "field_expression")


def declared_type(expr: Node | None, st: State) -> tuple[Node, scope.Unit] | None:
    """(the type node, the file it is written in) the code declares for `expr`: a local or
    parameter with a type (`m: &Model<B>`, `let m: Model<B> = ..`), `self` in an impl, a field
    of a value whose type is a struct of the crate (`batch.frames`, `self.block.norm`); None
    for anything else (an inferred `let`, a call, a field of a generic or another crate's
    type)."""
    while expr is not None and expr.type in ("parenthesized_expression", "reference_expression"):
        expr = child_by_field(expr, "value") or (
            expr.named_children[-1] if expr.named_children else None
        )
    if expr is None or expr.type not in _TYPED:
        return None
    key = ("evaluate", "declared-type", expr.id)
    if key in st.memo:
        found: tuple[Node, scope.Unit] | None = st.memo[key]
        return found
    found = st.memo[key] = _declared_type(expr, st)
    return found


_ITERATING = frozenset({"iter", "iter_mut", "into_iter"})


def _element_type(pattern: Node, st: State) -> tuple[Node, scope.Unit] | None:
    """The item type of a `for` loop's variable (its pattern a plain name) over a value whose
    declared type is a `Vec<T>`, an array `[T; N]` or a slice (`for block in &self.blocks`,
    `self.layers.iter()`): `T`."""
    loop = pattern.parent
    if loop is None or loop.type != "for_expression" or pattern.type != "identifier":
        return None
    if child_by_field(loop, "pattern") != pattern:
        return None
    over = child_by_field(loop, "value")
    parts = method_call(over) if over is not None and over.type == "call_expression" else None
    if parts is not None and st.unit.text(parts[1]) in _ITERATING and not parts[2]:
        over = parts[0]
    found = declared_type(over, st)
    kind = found[0] if found is not None else None
    while kind is not None and kind.type == "reference_type":
        kind = child_by_field(kind, "type")
    if kind is None or found is None:
        return None
    if kind.type in ("array_type", "slice_type"):
        element = child_by_field(kind, "element")
    elif (
        kind.type == "generic_type" and found[1].text(child_by_field(kind, "type") or kind) == "Vec"
    ):
        args = child_by_field(kind, "type_arguments")
        element = args.named_children[0] if args is not None and args.named_children else None
    else:
        element = None
    return (element, found[1]) if element is not None else None


def _base_text(kind: Node, unit: scope.Unit) -> str:
    return unit.text(child_by_field(kind, "type") or kind)


def _declared_type(expr: Node, st: State) -> tuple[Node, scope.Unit] | None:
    unit = st.unit
    if expr.type == "identifier":
        binding = st.binding(expr)
        if binding is not None and binding.type_node is None:
            return _element_type(binding.decl, st)  # `for block in &self.blocks`
        if binding is None or binding.type_node is None:
            return None
        return _self_type(binding.type_node, unit), unit
    if expr.type == "self":
        impl = scope._enclosing_impl(expr, unit)
        kind = child_by_field(impl, "type") if impl is not None else None
        return (kind, unit) if kind is not None else None
    base, field = child_by_field(expr, "value"), child_by_field(expr, "field")
    if field is None or field.type != "field_identifier":
        return None  # `t.0`: a tuple's item
    owner = declared_struct(base, st)
    if owner is None or owner.node.type != "struct_item":
        return None
    decl = _field_declaration(owner, unit.text(field))
    kind = child_by_field(decl, "type") if decl is not None else None
    if kind is None or _generic(kind, owner.unit):
        return None  # a field of a generic type (`inner: M`): the type is the user's choice
    return kind, owner.unit


def _self_type(kind: Node, unit: scope.Unit) -> Node:
    """`Self` (or `&Self`) in an impl: the impl's type."""
    inner = kind
    while inner.type == "reference_type" and (deeper := child_by_field(inner, "type")):
        inner = deeper
    if inner.type == "type_identifier" and unit.text(inner) == "Self":
        impl = scope._enclosing_impl(inner, unit)
        owner = child_by_field(impl, "type") if impl is not None else None
        if owner is not None:
            return owner
    return kind


def declared_struct(expr: Node | None, st: State) -> scope.Item | None:
    """The struct or enum of the crate that `expr`'s declared type names (`&`, `&mut` and
    generic arguments stripped); None for a generic parameter, a trait object, `impl Trait`,
    another crate's type or a type that is not declared."""
    found = declared_type(expr, st)
    return struct_named(found[0], found[1], st) if found is not None else None


def struct_named(kind: Node, unit: scope.Unit, st: State) -> scope.Item | None:
    """The struct or enum of the crate a type node (written in `unit`) names."""
    while kind.type in ("reference_type", "generic_type"):
        inner = child_by_field(kind, "type")
        if inner is None:
            return None
        kind = inner
    if kind.type not in ("type_identifier", "scoped_type_identifier"):
        return None
    key = ("evaluate", "struct-named", id(unit), kind.id)
    if key in st.memo:
        found: scope.Item | None = st.memo[key]
        return found
    found = None
    # a generic, a tensor type (read as burn's, as a declared `x: Tensor<B, 3>` is), or a name
    # the file imports from burn (`Linear`): not the crate's
    if (
        not _generic(kind, unit)
        and unit.text(kind) != "Tensor"
        and unit.imports.resolve(kind) is None
    ):
        item = scope.item_at(kind, unit)
        if item is not None and item.node.type in ("struct_item", "enum_item"):
            found = item
    st.memo[key] = found
    return found


def _field_declaration(owner: scope.Item, name: str) -> Node | None:
    body = child_by_field(owner.node, "body")
    for decl in body.named_children if body is not None else ():
        ident = child_by_field(decl, "name") if decl.type == "field_declaration" else None
        if ident is not None and owner.unit.text(ident) == name:
            return decl
    return None


_GENERIC_HOLDERS = frozenset(
    {"function_item", "impl_item", "struct_item", "enum_item", "trait_item",
     "function_signature_item"}
)  # fmt: skip


def _generic(kind: Node, unit: scope.Unit) -> bool:
    """Whether a type node names (or is, under `&`) a generic parameter of an item around it
    (`m: &M` in `fn f<M: Module<B>>`), which may be any type."""
    while kind.type == "reference_type" and (inner := child_by_field(kind, "type")):
        kind = inner
    while kind.type == "scoped_type_identifier" and (path := child_by_field(kind, "path")):
        kind = path  # `B::Device`: the generic `B`'s
    if kind.type not in ("type_identifier", "identifier"):
        return False
    name = unit.text(kind)
    node = kind.parent
    while node is not None:
        if node.type in _GENERIC_HOLDERS:
            params = child_by_field(node, "type_parameters")
            for param in params.named_children if params is not None else ():
                ident = (
                    param
                    if param.type == "type_identifier"
                    else (
                        child_by_field(param, "name")
                        or next(
                            (c for c in param.named_children if c.type == "type_identifier"), None
                        )
                    )
                )
                if ident is not None and unit.text(ident) == name:
                    return True
        node = node.parent
    return False


register("own-struct", struct_literal_value)

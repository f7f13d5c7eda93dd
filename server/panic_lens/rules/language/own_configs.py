"""The user's own `#[derive(Config)]` structs as values (docs/rule-language.md, "Values a
condition can read"): burn's derive gives such a struct a `new` that takes the fields without a
default that are not `Option`s, in declaration order; `Option` fields start `None` and
`#[config(default = ..)]` fields at their default (a literal, constant arithmetic, a field `new`
takes); `with_<field>(v)` setters exist for those two kinds. This module reads a struct of the
crate so, and registers with the evaluator (`register("config-struct", ..)`) the value of an
expression that builds one: `X::new(a, b)` (`Self::new` in its impl), a setter on such a value,
a literal (`X { groups: 3, ..X::new(32) }`). The value is an `evaluate.state.Fields`: a map of
the fields whose values are known, which then flows like any value (`let`s, a function's
parameters, `cfg.groups`, `self` in a method called on it).

Honest: a struct whose derive is not plainly burn's (another crate's `Config` derive, a file that
names no burn), or whose impls write their own `new`, is not read so; a field whose value is
not known is absent; a config loaded from a file (`X::load(..)`) is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panic_lens.evaluate.fields import derives, is_config
from panic_lens.evaluate.literals import at
from panic_lens.evaluate.scope import Item, _base_name, _enclosing_impl, _impls
from panic_lens.evaluate.state import MAX_DEPTH, Fields, Frame, State, Value, register
from panic_lens.rules.language.defaults import constant_value
from panic_lens.rules.language.values import UNKNOWN, parse_default
from panic_lens.rust.burn_index import config_default
from panic_lens.rust.syntax import (
    Node,
    child_by_field,
    method_call,
    path_call,
    span_of,
    struct_literal_parts,
)

REQUIRED, OPTION, DEFAULT = "required", "option", "default"


@dataclass(frozen=True, slots=True)
class OwnField:
    name: str
    kind: str  # REQUIRED, OPTION or DEFAULT
    default: str | None  # the Rust expression of `#[config(default = ..)]`, a string unquoted
    at: Node  # the field's declaration (a default's origin)


@dataclass(frozen=True, slots=True)
class OwnConfig:
    item: Item
    name: str
    fields: tuple[OwnField, ...]

    def field(self, name: str) -> OwnField | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def required(self) -> tuple[OwnField, ...]:
        return tuple(f for f in self.fields if f.kind == REQUIRED)


def own_config(item: Item | None, st: State) -> OwnConfig | None:
    """The struct `item` read as burn's derive makes it, when it is a `#[derive(Config)]`
    struct of the crate; once per struct and analysis."""
    if item is None or item.node.type != "struct_item":
        return None
    key = ("own-config", id(item.unit), item.node.id)
    if key not in st.memo:
        st.memo[key] = _read(item)
    found: OwnConfig | None = st.memo[key]
    return found


def _read(item: Item) -> OwnConfig | None:
    unit, node = item.unit, item.node
    name = child_by_field(node, "name")
    body = child_by_field(node, "body")
    if name is None or body is None or body.type != "field_declaration_list":
        return None
    if not is_config(node, unit) or not _burns(node, item):
        return None
    type_name = unit.text(name)
    for impl in _impls(unit):  # a constructor of its own: not burn's derive
        if _base_name(child_by_field(impl, "type"), unit) != type_name:
            continue
        impl_body = child_by_field(impl, "body")
        for child in impl_body.named_children if impl_body is not None else ():
            ident = child_by_field(child, "name") if child.type == "function_item" else None
            if ident is not None and unit.text(ident) == "new":
                return None
    fields: list[OwnField] = []
    attrs: list[Node] = []
    for child in body.named_children:
        if child.type == "attribute_item":
            attrs.append(child)
            continue
        if child.type != "field_declaration":
            continue
        field_name, kind = child_by_field(child, "name"), child_by_field(child, "type")
        if field_name is None or kind is None:
            return None
        default = config_default(attrs, unit.src)
        attrs = []
        if default is not None:
            fields.append(OwnField(unit.text(field_name), DEFAULT, default[0], default[1]))
        elif _option(kind, unit):
            fields.append(OwnField(unit.text(field_name), OPTION, None, child))
        else:
            fields.append(OwnField(unit.text(field_name), REQUIRED, None, child))
    return OwnConfig(item, type_name, tuple(fields))


def _burns(node: Node, item: Item) -> bool:
    """The `Config` derive is burn's: named by a path through burn (`burn::config::Config`),
    or plainly `Config` in a file that uses burn."""
    for path in derives(node, item.unit):
        if path.rsplit("::", 1)[-1] != "Config":
            continue
        if path == "Config":
            return b"burn" in item.unit.src
        return path.split("::", 1)[0].startswith("burn")
    return False


def _option(kind: Node, unit: Any) -> bool:
    """`Option<T>` written as such (burn's derive reads the type's path: `std::option::Option`
    is a required field to it)."""
    if kind.type != "generic_type":
        return False
    base = child_by_field(kind, "type")
    return base is not None and base.type == "type_identifier" and unit.text(base) == "Option"


def _default_value(field: OwnField, config: OwnConfig, given: dict[str, Value]) -> Value | None:
    """A default field's value as `new` sets it: the literal, constant arithmetic over literals
    and the fields `new` takes (`"kernel_size / 2"`), else unknown."""
    text = field.default
    if text is None:
        return None
    found = parse_default(text)
    if found is UNKNOWN:

        def leaf(token: str) -> Any:
            known = given.get(token)
            if known is not None:
                return known.value
            number = parse_default(token)
            return number if type(number) in (int, float) else None

        found = constant_value(text, leaf)
        if found is None:
            return None
    where = f"{config.name}.{field.name}"
    return Value(found, span_of(field.at), None, f"default {text}", config.item.unit.path,
                 None, (f"{where} defaults to {text} at {at(field.at)}",))  # fmt: skip


def _new(call: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """`X::new(a, b)`: the required fields in order, the others their defaults."""
    parts = path_call(call)
    if parts is None or st.unit.text(parts[1]) != "new":
        return None
    owner, _, args = parts
    config = own_config(_type_item(owner, st), st)
    if config is None or len(config.required) != len(args):
        return None
    given: dict[str, Value] = {}
    for field, arg in zip(config.required, args, strict=True):
        known = st.value(arg, frame, depth + 1)
        if known is not None:
            given[field.name] = known
    sources: dict[str, Value] = {}
    for field in config.fields:
        if field.kind == REQUIRED:
            if field.name in given:
                sources[field.name] = given[field.name]
        elif field.kind == OPTION:
            sources[field.name] = Value(None, span_of(field.at), None, "default None",
                                        config.item.unit.path)  # fmt: skip
        elif (default := _default_value(field, config, given)) is not None:
            sources[field.name] = default
    return _made(config, sources, call, st)


def _made(config: OwnConfig, sources: dict[str, Value], node: Node, st: State) -> Value:
    text = " ".join(st.unit.text(node).split())
    shown = text if len(text) <= 60 else text[:57] + "..."
    return Value(Fields(config.item, sources), span_of(node), None, "", st.unit.path, None,
                 (f"{shown} at {at(node)}",))  # fmt: skip


def _type_item(written: Node, st: State) -> Item | None:
    """The struct of the crate a written type names (`Self` in one of its impls)."""
    type_node: Node | None = written
    if st.unit.text(written) == "Self":
        impl = _enclosing_impl(written, st.unit)
        type_node = child_by_field(impl, "type") if impl is not None else None
    while type_node is not None and type_node.type == "generic_type":
        type_node = child_by_field(type_node, "type")
    return st.item_at(type_node) if type_node is not None else None


def _setter(call: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """`cfg.with_groups(3)` on a config value: the field set (only a default or `Option`
    field has a setter)."""
    parts = method_call(call)
    if parts is None:
        return None
    receiver, method, args = parts
    name = st.unit.text(method)
    if not name.startswith("with_") or len(args) != 1:
        return None
    inner = st.value(receiver, frame, depth + 1)
    fields = inner.value if inner is not None else None
    if not isinstance(fields, Fields):
        return None
    config = own_config(fields.owner, st)
    field = config.field(name.removeprefix("with_")) if config is not None else None
    if config is None or field is None or field.kind == REQUIRED:
        return None
    sources = dict(fields.sources)
    known = st.value(args[0], frame, depth + 1)
    if known is None:
        sources.pop(field.name, None)
    else:
        sources[field.name] = known
    made = _made(config, sources, call, st)
    return Value(made.value, made.origin, None, "", made.path, None,
                 (*inner.steps, *made.steps) if inner is not None else made.steps)  # fmt: skip


def _literal(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """`X { groups: 3, ..X::new(32) }`: the fields it writes over its base's."""
    name, body = child_by_field(node, "name"), child_by_field(node, "body")
    if name is None or body is None:
        return None
    config = own_config(_type_item(name, st), st)
    if config is None:
        return None
    sources: dict[str, Value] = {}
    written, base_node = struct_literal_parts(node, st.unit.text)
    if base_node is not None:
        base = st.value(base_node, frame, depth + 1)
        fields = base.value if base is not None else None
        if isinstance(fields, Fields) and fields.owner.node.id == config.item.node.id:
            sources.update(fields.sources)
    for field_name, value in written.items():
        known = st.value(value, frame, depth + 1) if value is not None else None
        if known is None:
            sources.pop(field_name, None)
        else:
            sources[field_name] = known
    return _made(config, sources, node, st)


def config_struct_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """The value of a `#[derive(Config)]` struct of the crate that `node` builds (a call of
    `new`, a setter, a literal), or None: the evaluator asks it of every struct literal, of
    every path call it does not know and of every method call (`State.struct_value`)."""
    if depth > MAX_DEPTH:
        return None
    if node.type == "struct_expression":
        return _literal(node, st, frame, depth)
    if node.type != "call_expression":
        return None
    function = child_by_field(node, "function")
    if function is not None and function.type == "field_expression":
        return _setter(node, st, frame, depth)
    name = child_by_field(function, "name") if function is not None else None
    if name is None or st.unit.src[name.start_byte : name.end_byte] != b"new":
        return None  # (a look at the bytes: the evaluator asks this of every unknown call)
    return _new(node, st, frame, depth)


register("config-struct", config_struct_value)

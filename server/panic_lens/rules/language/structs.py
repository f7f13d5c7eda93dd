"""burn's plain option structs as an argument's value (docs/rule-language.md): a struct a call
takes by value, such as `StftOptions`, is not a `#[derive(Config)]` config, yet a rule reads its
fields (`options.hop_length`). This module owns the table that says which structs these are,
their fields and what burn's constructors set (`rules/data/burn-<version>.structs.toml`, read by
hand from burn's source), and the value of an expression that builds one: a struct literal (the
fields it writes whose value is known, over its `..base`), a constructor (`StftOptions::new(n)`,
`T::default()`), through `let`s. A field whose value is not known is absent, never a default.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cel_expr_python.cel as cel

from panic_lens import evaluate
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import Value
from panic_lens.rules.language.conditions import ConditionError, compile_expr
from panic_lens.rust.burn_api import canonical
from panic_lens.rust.syntax import (
    Node,
    call_parts,
    child_by_field,
    method_call,
    span_of,
    strip_wrappers,
)

if TYPE_CHECKING:
    from panic_lens.rust.facts import FileFacts

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
_MAX_DEPTH = 12


@dataclass(frozen=True, slots=True)
class Constructor:
    name: str
    params: tuple[str, ...]
    sets: tuple[tuple[str, str], ...]  # (field, condition expression over `params`)


@dataclass(frozen=True, slots=True)
class StructInfo:
    path: str
    fields: tuple[str, ...]
    constructors: dict[str, Constructor]


class StructTableError(ValueError):
    """A table entry that cannot be read (the message names the file and the entry)."""


@lru_cache(maxsize=1)
def table() -> dict[str, StructInfo]:
    """The newest shipped table, by every path naming each struct (empty when none ships)."""
    files = sorted(DATA_DIR.glob("burn-*.structs.toml"))
    return read_table(files[-1]) if files else {}


def read_table(path: Path) -> dict[str, StructInfo]:
    return table_from_data(tomllib.loads(path.read_text(encoding="utf-8")), path.name)


def table_from_data(data: dict[str, Any], source: str = "<structs>") -> dict[str, StructInfo]:
    found: dict[str, StructInfo] = {}
    for at, entry in enumerate(data.get("struct", ())):
        where = f"{source}: struct[{at}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise StructTableError(f"{where}: path: missing or not a string")
        if not isinstance(entry.get("src"), str):
            raise StructTableError(f"{where} ({entry['path']}): src: missing or not a string")
        fields = tuple(entry.get("fields", ()))
        makers = {}
        for maker in entry.get("constructor", ()):
            made = _constructor(maker, fields, f"{where} ({entry['path']})")
            makers[made.name] = made
        info = StructInfo(entry["path"], fields, makers)
        for path in (info.path, *entry.get("paths", ())):  # its other public paths
            found[path] = info
            found.setdefault(canonical(path.split("::")) or path, info)
    return found


def _constructor(entry: Any, fields: tuple[str, ...], where: str) -> Constructor:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise StructTableError(f"{where}: constructor: name missing or not a string")
    params = tuple(entry.get("params", ()))
    sets = entry.get("sets", {})
    for field, expr in sets.items():
        if field not in fields:
            raise StructTableError(f"{where}: constructor {entry['name']}: {field} is no field")
        try:
            compile_expr(expr, params)
        except ConditionError as exc:
            raise StructTableError(f"{where}: constructor {entry['name']}: {field}: {exc}") from exc
    return Constructor(entry["name"], params, tuple(sets.items()))


def struct_value(expr: Node | None, facts: FileFacts, depth: int = 0) -> Value | None:
    """The fields (a map) of the table's struct that `expr` builds, as far as the file shows
    them; None when `expr` builds none of the table's structs."""
    found = _fields(expr, facts, depth)
    if found is None:
        return None
    fields, origin = found
    return Value({name: v.value for name, v in fields.items()}, origin, note="struct")


def _fields(expr: Node | None, facts: FileFacts, depth: int) -> tuple[dict[str, Value], Any] | None:
    expr = strip_wrappers(expr)
    if expr is None or depth > _MAX_DEPTH:
        return None
    if expr.type == "identifier":
        binding = facts.binding(expr)
        bound = bound_value(expr, binding, facts.src, facts.tree.root_node) if binding else None
        return _fields(bound, facts, depth + 1) if bound is not None else None
    if expr.type == "struct_expression":
        return _literal(expr, facts, depth)
    if expr.type == "call_expression":
        parts = method_call(expr)
        if parts is not None:  # `options.clone()` is its receiver's value
            receiver, name, args = parts
            cloned = facts.text(name) == "clone" and not args
            return _fields(receiver, facts, depth + 1) if cloned else None
        return _constructed(expr, facts, None)
    return None


def _struct_named(type_node: Node | None, facts: FileFacts) -> StructInfo | None:
    if type_node is None:
        return None
    if type_node.type == "generic_type":
        type_node = child_by_field(type_node, "type")
    path = facts.resolve(type_node) if type_node is not None else None
    return table().get(path) if path is not None else None


def _constructed(
    call: Node, facts: FileFacts, of: StructInfo | None
) -> tuple[dict[str, Value], Any] | None:
    """`T::new(a)`, `T::default()` of a struct of the table (`Default::default()` when the
    struct is known from the literal it is the base of: `of`)."""
    callee, args = call_parts(call)
    if callee is None or callee.type != "scoped_identifier":
        return None
    owner, name = child_by_field(callee, "path"), child_by_field(callee, "name")
    if owner is None or name is None:
        return None
    info = of if facts.text(owner) == "Default" else _struct_named(owner, facts)
    maker = info.constructors.get(facts.text(name)) if info is not None else None
    if maker is None or len(maker.params) != len(args):
        return None
    data: dict[str, Any] = {}
    for param, arg in zip(maker.params, args, strict=True):
        known = evaluate.value_of(arg, facts)
        if known is not None:
            data[param] = known.value
    origin = span_of(call)
    fields: dict[str, Value] = {}
    for field, text in maker.sets:
        done, result = _evaluate(text, maker.params, data)
        if done:
            fields[field] = Value(result, origin, note=f"{facts.text(callee)}(..) sets {field}")
    return fields, origin


def _evaluate(expr: str, names: tuple[str, ...], data: dict[str, Any]) -> tuple[bool, Any]:
    """(known, value) of a constructor's field expression; a CEL null is a known None."""
    try:
        result = compile_expr(expr, names).eval(data=data)
    except Exception:  # an input CEL cannot take: not known
        return False, None
    kind = result.type()
    if kind == cel.Type.NULL:
        return True, None
    if kind in (cel.Type.ERROR, cel.Type.UNKNOWN):
        return False, None
    plain = result.plain_value() if hasattr(result, "plain_value") else result.value()
    return True, _ordered(plain)


def _ordered(value: Any) -> Any:
    """A CEL map's keys come back in no fixed order: sorted, so that a note says the same
    on every run."""
    if isinstance(value, dict):
        return {key: _ordered(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    return value


def _literal(expr: Node, facts: FileFacts, depth: int) -> tuple[dict[str, Value], Any] | None:
    info = _struct_named(child_by_field(expr, "name"), facts)
    body = child_by_field(expr, "body")
    if info is None or body is None:
        return None
    fields: dict[str, Value] = {}
    written: dict[str, Node] = {}
    for item in body.named_children:
        if item.type == "base_field_initializer" and item.named_children:
            base = item.named_children[0]
            found = _fields(base, facts, depth + 1)
            if found is None and base.type == "call_expression":  # `..Default::default()`
                found = _constructed(base, facts, info)
            if found is not None:
                fields.update(found[0])
        elif item.type == "field_initializer":
            field_node, value_node = child_by_field(item, "field"), child_by_field(item, "value")
            if field_node is not None and value_node is not None:
                written[facts.text(field_node)] = value_node
        elif item.type == "shorthand_field_initializer":
            written[facts.text(item)] = item.named_children[0] if item.named_children else item
    for name, node in written.items():
        known = evaluate.value_of(node, facts) or struct_value(node, facts, depth + 1)
        if known is None:
            fields.pop(name, None)
        else:
            fields[name] = Value(known.value, known.origin, node, known.note, known.path)
    return fields, span_of(expr)

"""burn's plain option structs as an argument's value (docs/rule-language.md): a struct a call
takes by value, such as `StftOptions`, is not a `#[derive(Config)]` config, yet a rule reads its
fields (`options.hop_length`). This module owns the table that says which structs these are,
their fields and what burn's constructors set (`rules/data/burn-<version>.structs.toml`, read by
hand from burn's source), and the value of an expression that builds one, which it registers
with the evaluator (`evaluate` knows no burn struct): a struct literal (the fields it writes
whose value is known, over its `..base`), a constructor (`StftOptions::new(n)`, `T::default()`).
A field whose value is not known is absent, never a default.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cel_expr_python.cel as cel

from panic_lens.evaluate.state import MAX_DEPTH, Frame, State, Value, register
from panic_lens.rules.language.conditions import ConditionError, compile_expr
from panic_lens.rust.burn_api import canonical
from panic_lens.rust.syntax import Node, child_by_field, path_call, span_of, struct_literal_parts

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


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


def struct_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """The fields (a map) of the table's struct that `node` builds (a struct literal or a
    constructor call), as far as the code shows them, in `frame`; None when it builds none of
    the table's structs. The evaluator asks this of every struct literal and of every call it
    does not know (`State.struct_value`), so a struct flows like any value: through `let`s,
    `.clone()`, branches, and the crate's own functions called with known arguments."""
    if depth > MAX_DEPTH:
        return None
    if node.type == "struct_expression":
        fields = _literal(node, st, frame, depth)
    elif node.type == "call_expression":
        fields = _constructed(node, st, frame, depth, None)
    else:
        fields = None
    if fields is None:
        return None
    return Value(fields, span_of(node), path=st.unit.path)


def _struct_named(type_node: Node | None, st: State) -> StructInfo | None:
    if type_node is not None and type_node.type == "generic_type":
        type_node = child_by_field(type_node, "type")
    if type_node is None:
        return None
    path = st.resolve(type_node)
    return table().get(path) if path is not None else None


def _constructed(
    call: Node, st: State, frame: Frame, depth: int, of: StructInfo | None
) -> dict[str, Any] | None:
    """`T::new(a)`, `T::default()` of a struct of the table (`Default::default()` when the
    struct is known from the literal it is the base of: `of`)."""
    parts = path_call(call)
    if parts is None:
        return None
    owner, name, args = parts
    text = st.unit.text
    info = of if text(owner) == "Default" else _struct_named(owner, st)
    maker = info.constructors.get(text(name)) if info is not None else None
    if maker is None or len(maker.params) != len(args):
        return None
    data: dict[str, Any] = {}
    for param, arg in zip(maker.params, args, strict=True):
        known = st.value(arg, frame, depth + 1)
        if known is not None:
            data[param] = known.value
    fields: dict[str, Any] = {}
    for field, expr in maker.sets:
        done, result = _evaluate(expr, maker.params, data)
        if done:
            fields[field] = result
    return fields


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


def _literal(expr: Node, st: State, frame: Frame, depth: int) -> dict[str, Any] | None:
    """`T { f: v, ..base }`: the fields it writes whose value is known, over the base's."""
    info = _struct_named(child_by_field(expr, "name"), st)
    if info is None or child_by_field(expr, "body") is None:
        return None
    fields: dict[str, Any] = {}
    written, base = struct_literal_parts(expr, st.unit.text)
    if base is not None:
        found = st.value(base, frame, depth + 1)
        if found is not None and isinstance(found.value, dict):
            fields.update(found.value)
        elif base.type == "call_expression":  # `..Default::default()`
            fields.update(_constructed(base, st, frame, depth + 1, info) or {})
    for name, node in written.items():
        known = st.value(node, frame, depth + 1) if node is not None else None
        if known is None:
            fields.pop(name, None)
        else:
            fields[name] = known.value
    return fields


register("struct", struct_value)

from panic_lens.rules.language import own_configs  # noqa: E402, F401 (the user's own configs)

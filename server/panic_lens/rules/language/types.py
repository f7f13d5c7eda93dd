"""The CEL types of the values a rule reads, for the load-time check (`check.py`).

A config's fields get the types of burn's Rust fields (the shipped config table): integers
are `int`, `f32`/`f64` `double`, `bool`, `String` `string`, `Option<T>` is T or null (CEL's
wrapper of T, or dyn), `Vec<T>`, `[T; N]` and tuples are lists, and an enum (any other named
type that is not itself a config) is the name of its variant, a string, as `values.py` folds
it. `context`, `receiver` and `result` have the fields `detect.py` gives them. What cannot
be told (a generic, a nested config) is `dyn`: it type-checks against anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import cel_expr_python.cel as cel

from panic_lens.rules.language import configs
from panic_lens.rules.language.spec import Where

_INTS = frozenset(
    {"usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128"}
)
_DOUBLES = frozenset({"f32", "f64", "LearningRate"})  # burn: `type LearningRate = f64`
_WRAPPERS = {
    "INT": "google.protobuf.Int64Value",
    "DOUBLE": "google.protobuf.DoubleValue",
    "BOOL": "google.protobuf.BoolValue",
    "STRING": "google.protobuf.StringValue",
}


def _records() -> dict[str, dict[str, Any]]:
    t = cel.Type
    # `dim`: the known dims by index (negative too), when the others are not (`evaluate`)
    tensor = {"dims": t.List(t.INT), "dim": t.Map(t.INT, t.INT), "numel": t.INT, "rank": t.INT}
    # an enum's variant and its literal's fields (`detect._bind`)
    receiver = tensor | {"variant": t.STRING, "fields": t.Map(t.STRING, t.DYN)}
    context = {
        "backends": t.List(t.STRING), "cubecl": t.BOOL, "training": t.BOOL, "test": t.BOOL,
        "burn": t.STRING,
    }  # fmt: skip
    return {"context": context, "receiver": receiver, "result": {"rank": t.INT}}


RECORDS = _records()


def rust_type(text: str) -> Any:
    """The CEL type of a value of Rust type `text`, as the rule language folds it."""
    return _rust_type(re.sub(r"\s+", " ", text.strip()))


def _rust_type(text: str) -> Any:
    t = cel.Type
    text = re.sub(r"^&\s*(?:'\w+\s+)?(?:mut\s+)?", "", text).strip()
    found = re.fullmatch(r"Option\s*<(.*)>", text)
    if found:
        inner = _rust_type(found.group(1).strip())
        wrapper = _WRAPPERS.get(inner.name())
        return t(wrapper) if wrapper else t.DYN
    found = re.fullmatch(r"Vec\s*<(.*)>", text) or re.fullmatch(r"\[(.*?)(?:;.*)?\]", text)
    if found:
        return t.List(_item(found.group(1)))
    if text.startswith("(") and text.endswith(")"):
        items = [_item(part) for part in _top_level(text[1:-1])]
        return t.List(agree(items) if items else t.DYN)
    if text in _INTS:
        return t.INT
    if text in _DOUBLES:
        return t.DOUBLE
    if text == "bool":
        return t.BOOL
    if text in ("String", "str"):
        return t.STRING
    if re.fullmatch(r"[A-Z][A-Za-z0-9]+", text) and not _is_config(text):
        return t.STRING  # an enum: its variant's name (`PaddingConfig2d::Same` is "Same")
    return t.DYN


def _item(text: str) -> Any:
    kind = _rust_type(text.strip())
    return cel.Type.DYN if kind.name().endswith("_wrapper") else kind


def _top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for at, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _is_config(name: str) -> bool:
    table = configs.table()
    if _NAMES.get("table") is not table:  # one set per table (tests substitute theirs)
        names = frozenset(path.rsplit("::", 1)[-1] for path in table.configs)
        _NAMES.update(table=table, names=names)
    return name in _NAMES["names"]


_NAMES: dict[str, Any] = {}


def config_fields(owner: str) -> dict[str, Any] | None:
    """The fields of the config a call on `owner` reads (`owner` a config, or a module its
    `init` makes), with their types; None when it has none."""
    table = configs.table()
    info = table.config(owner)
    if info is None:
        module_config = configs.config_of_module(owner)
        info = table.config(module_config) if module_config else None
    if info is None:
        return None
    return {f.name: rust_type(f.type) for f in info.fields}


def no_config_table() -> bool:
    """Whether panic-lens ships no config table (then a config's fields are not known)."""
    return not configs.table().configs


def merge(fields: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The fields of several configs: a field keeps its type where they agree, else dyn."""
    kinds: dict[str, list[Any]] = {}
    for one in fields:
        for name, kind in one.items():
            kinds.setdefault(name, []).append(kind)
    return {name: agree(found) for name, found in kinds.items()}


def agree(kinds: list[Any]) -> Any:
    """The one type of `kinds`, or dyn when they differ."""
    names = {k.name() for k in kinds}
    return kinds[0] if len(names) == 1 else cel.Type.DYN


def argument_types(where: Where) -> dict[str, Any]:
    """The arguments a `[[where]]` names, typed from burn's parameters where every definition
    of the call the index knows agrees on a number, a bool or a list of them (`dim: usize` is
    an int); anything else is dyn: a generic or a struct may be given as a slice, a list, a
    tensor, which the condition tells apart with `type()`."""
    from panic_lens.rules.language.api import parameter_types

    names = [a for a in where.args]
    found: dict[str, list[Any]] = {a: [] for a in names if a != "_"}
    definitions = () if where.external else parameter_types(where.call)
    for params in definitions:
        for at, name in enumerate(names):
            if name != "_":
                found[name].append(_scalar(params[at]) if at < len(params) else cel.Type.DYN)
    return {name: agree(kinds) if kinds else cel.Type.DYN for name, kinds in found.items()}


def _scalar(rust: str) -> Any:
    """A parameter's CEL type when it is plain data (a number, a bool, an Option or a list of
    them), else dyn."""
    kind = rust_type(rust)
    plain = ("INT", "DOUBLE", "BOOL", "LIST<INT>", "LIST<DOUBLE>", "LIST<BOOL>")
    wrappers = ("int_wrapper", "double_wrapper", "bool_wrapper")
    return kind if kind.name() in plain + wrappers else cel.Type.DYN

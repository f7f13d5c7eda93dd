"""Conditions: CEL expressions evaluated three-valued (docs/rule-language.md).

A value not known statically is left out of the inputs; CEL's `&&`/`||` absorb the resulting
"no such value" errors the way Kleene logic absorbs unknown, so `True` comes back only when
the condition holds for every value the unknowns could take. Any other error (a remainder by
zero, a type mismatch) is `Failed`: no finding, and the reason for `rules test`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cel_expr_python.cel as cel

# Errors that mean "an input is not known": the variable or map key is absent.
_UNKNOWN_MARKS = ("No value with name", "Key not found in map", "no such key", "No such key")


@dataclass(frozen=True, slots=True)
class Failed:
    reason: str


Outcome = Any  # a Python value (bool for conditions), None for unknown, or Failed


class ConditionError(ValueError):
    """An expression that does not compile (the message is CEL's, first line)."""


@lru_cache(maxsize=4096)
def compile_expr(expr: str, names: tuple[str, ...]) -> Any:
    """The compiled expression; ConditionError when CEL rejects it."""
    try:
        return _env(names).compile(expr)
    except RuntimeError as exc:
        raise ConditionError(_first_error(str(exc))) from exc


_ENVS: dict[tuple[str, ...], Any] = {}


def _env(names: tuple[str, ...]) -> Any:
    env = _ENVS.get(names)
    if env is None:
        variables = {name: cel.Type.DYN for name in names}
        env = _ENVS[names] = cel.NewEnv(variables=variables, functions=_functions())
    return env


@lru_cache(maxsize=1)
def _functions() -> list[Any]:
    """The functions the rule language adds to CEL's, for shapes: `sum(list)`,
    `product(list)` (a shape's number of elements), `gcd(list)` (of integers),
    `indices(list)` (`[0, .., size - 1]`, to
    walk two lists together: `indices(a).exists(i, a[i] != b[i])`) and `shape(x)` (the dims
    of the data a nested array holds, or of a tensor whose shape is known). A list that is not known
    makes them unknown, as any other use of it; items that are not numbers are an error."""

    def one(name: str, result: Any, impl: Any) -> Any:
        overload = cel.Overload(f"{name}_list", result, [cel.Type.LIST], impl=impl)
        return cel.FunctionDecl(name, [overload])

    return [
        one("sum", cel.Type.DYN, _sum),
        one("product", cel.Type.DYN, _product),
        one("indices", cel.Type.LIST, lambda items: list(range(len(items)))),
        one("gcd", cel.Type.DYN, _gcd),  # a fix's group count that divides every channel count
        cel.FunctionDecl("shape", [_SHAPE_OF_LIST, _SHAPE_OF_TENSOR]),
    ]


def _nested_shape(items: list[Any]) -> list[int]:
    """The shape of the data a nested array holds (`[[1.0, 2.0], [3.0, 4.0]]`: [2, 2]), as
    burn's `TensorData::from` reads it; an error when it is ragged or holds other than numbers."""
    dims: list[int] = []
    level: list[Any] = [items]
    while all(isinstance(x, list) for x in level):
        sizes = {len(x) for x in level}
        if len(sizes) != 1:
            raise TypeError("shape takes a rectangular nested list")
        dims.append(sizes.pop())
        level = [y for x in level for y in x]
        if not level:
            break  # `[]` is `[0]`, `[[], []]` is `[2, 0]`
    if not all(type(x) in (int, float, bool) for x in level):
        raise TypeError("shape takes a nested list of numbers, or a tensor")
    return dims


def _tensor_shape(tensor: dict[str, Any]) -> list[int]:
    """A tensor value's shape (`dims`), when every dim is known."""
    dims = tensor.get("dims")
    if not isinstance(dims, list):
        raise TypeError("the tensor's shape is not known")
    return dims


_SHAPE_OF_LIST = cel.Overload("shape_list", cel.Type.LIST, [cel.Type.LIST], impl=_nested_shape)
_SHAPE_OF_TENSOR = cel.Overload(
    "shape_map", cel.Type.LIST, [cel.Type.Map(cel.Type.STRING, cel.Type.DYN)], impl=_tensor_shape
)


def declared_functions() -> list[Any]:
    """The rule language's functions, as a load-time check declares them too."""
    return _functions()


def _sum(items: list[Any]) -> Any:
    return sum(_numbers(items))


def _product(items: list[Any]) -> Any:
    return math.prod(_numbers(items))


def _gcd(items: list[Any]) -> Any:
    if not all(type(x) is int for x in items):
        raise TypeError("gcd takes a list of integers")
    return math.gcd(*items)


def _numbers(items: list[Any]) -> list[Any]:
    if not all(type(x) in (int, float) for x in items):
        raise TypeError("sum and product take a list of numbers")
    return items


def _first_error(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    head = lines[0] if lines else message
    return head.removeprefix("INVALID_ARGUMENT: ").removeprefix("ERROR: <input>:")


def evaluate(
    expr: str,
    names: tuple[str, ...],
    data: dict[str, Any],
    lengths: Mapping[str, int] | None = None,
) -> Outcome:
    """The value of `expr` over `data` (names absent from `data` are unknown): a Python
    value, None when unknown, or Failed. `lengths`: lists absent from `data` whose length is
    known (`[batch, 3]`): `size(x)` of one of them is that number."""
    if lengths:
        expr = with_lengths(expr, lengths)
    compiled = compile_expr(expr, names)
    try:
        result = compiled.eval(data=data)
    except Exception as exc:  # an input CEL cannot take (e.g. a huge int): not a finding
        return Failed(f"cannot evaluate: {exc}")
    kind = result.type()
    if kind == cel.Type.ERROR:
        text = str(result)
        if any(mark in text for mark in _UNKNOWN_MARKS):
            return None
        return Failed(_first_error(text.removeprefix("UNKNOWN: ")))
    if kind == cel.Type.UNKNOWN:
        return None
    return result.plain_value() if hasattr(result, "plain_value") else result.value()


def holds(
    expr: str,
    names: tuple[str, ...],
    data: dict[str, Any],
    lengths: Mapping[str, int] | None = None,
) -> bool | Failed | None:
    """True only when the condition is definitely true; None when unknown."""
    outcome = evaluate(expr, names, data, lengths)
    if isinstance(outcome, Failed) or outcome is None:
        return outcome
    if not isinstance(outcome, bool):
        return Failed(f"the condition gave {outcome!r}, not true or false")
    return outcome


# `size(x)`, `size((x))`, `x.size()`: what a list's length alone answers
_SIZE_OF = re.compile(r"\bsize\(\s*((?:\(\s*)*)([A-Za-z_]\w*)((?:\s*\))*)\s*\)")
_SIZE_METHOD = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*size\(\s*\)")
_TYPE_OF = re.compile(r"\btype\(\s*([A-Za-z_]\w*)\s*\)")


def with_lengths(expr: str, lengths: Mapping[str, int]) -> str:
    """`expr` with `size(x)` (or `x.size()`) of each list `x` of `lengths` written as its
    length, and `type(x)` as `list`; every other use of `x` stays, unknown. Strings are left
    alone."""

    def size_of(found: re.Match[str]) -> str:
        name = found.group(2)
        balanced = found.group(1).count("(") == found.group(3).count(")")
        return str(lengths[name]) if name in lengths and balanced else found.group(0)

    def method(found: re.Match[str]) -> str:
        name = found.group(1)
        return str(lengths[name]) if name in lengths else found.group(0)

    def kind(found: re.Match[str]) -> str:
        return "list" if found.group(1) in lengths else found.group(0)

    parts = re.split(r'("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')', expr)
    for i in range(0, len(parts), 2):  # the odd parts are string literals
        parts[i] = _TYPE_OF.sub(kind, _SIZE_METHOD.sub(method, _SIZE_OF.sub(size_of, parts[i])))
    return "".join(parts)


_OPEN, _CLOSE = "([{", ")]}"


def conjuncts(expr: str) -> tuple[str, ...]:
    """The parts of `expr` joined by its top-level `&&`s: the condition is true only when
    every part is. `(expr,)` when it is no such conjunction: a top-level `||` or `?:` binds
    looser than `&&` (so splitting there would change the meaning), or an escape, a
    triple-quoted string or a comment, which this scan does not read."""
    if any(mark in expr for mark in ('"""', "'''", "\\", "//")):
        return (expr,)
    parts, depth, start, at, quote = [], 0, 0, 0, ""
    while at < len(expr):
        ch = expr[at]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0 and (expr.startswith("||", at) or ch == "?"):
            return (expr,)
        elif depth == 0 and expr.startswith("&&", at):
            parts.append(expr[start:at].strip())
            start = at + 2
            at += 1
        at += 1
    if quote or depth != 0:
        return (expr,)
    parts.append(expr[start:].strip())
    return tuple(parts)

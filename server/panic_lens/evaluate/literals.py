"""Rust literals as values (`5_000usize`, `0x1F`, `1e-5f32`) and the wrappers an expression is
read through (parentheses, `&`, `?`)."""

from __future__ import annotations

import re
from typing import Any

from panic_lens.rust.syntax import Node, child_by_field

_INT_SUFFIXES = ("usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16",
                 "u8", "i8")  # fmt: skip
_INTS = frozenset(_INT_SUFFIXES)
_PRIMITIVES = frozenset((*_INT_SUFFIXES, "f32", "f64", "char", "bool", "str"))
_FLOAT = re.compile(r"-?(?:\d[\d_]*\.[\d_]*(?:[eE][+-]?\d+)?|\d[\d_]*[eE][+-]?\d+|\d[\d_]*\.?)")
_FLOAT_SUFFIX = re.compile(r"(?:_?(?:u|i)(?:8|16|32|64|128|size)|_?f(?:32|64))$")
_WRAPPERS = frozenset({"parenthesized_expression", "reference_expression", "try_expression"})


def parse_int_literal(text: str) -> int | None:
    """`5_000usize` -> 5000, `0x1F` -> 31, `0b101` -> 5; None for anything else."""
    text = text.replace("_", "").lower()
    for suffix in _INT_SUFFIXES:
        if text.endswith(suffix):  # no suffix starts with a hex digit, so 0xffu8 is safe
            text = text[: -len(suffix)]
            break
    try:
        return int(text, 0) if text[:2] in ("0x", "0o", "0b") else int(text, 10)
    except ValueError:
        return None


def parse_float_literal(text: str) -> float | None:
    number = _FLOAT_SUFFIX.sub("", text.replace(" ", ""))
    if not _FLOAT.fullmatch(number):
        return None
    try:
        return float(number.replace("_", ""))
    except ValueError:
        return None


def strip(node: Node | None) -> Node | None:
    while node is not None and node.type in _WRAPPERS:
        inner = child_by_field(node, "value")
        node = inner if inner is not None else next(iter(node.named_children), None)
    return node


def at(node: Node) -> str:
    """Where a node is, as explanations quote it (`line 54`)."""
    return f"line {node.start_point[0] + 1}"


def block_tail(block: Node) -> Node | None:
    """The expression a block (a function's body, a closure's) evaluates to: its last item
    when that is an expression, or a `match`, `if`, `loop` or inner block written last
    without a `;` (tree-sitter wraps those in a statement); None when the block ends in a
    statement (its value is `()`)."""
    items = [c for c in block.named_children if "comment" not in c.type]
    last = items[-1] if items else None
    if last is None:
        return None
    if last.type == "expression_statement":
        ends = last.children[-1] if last.children else None
        if ends is None or ends.type == ";" or len(last.named_children) != 1:
            return None
        return last.named_children[0]
    if last.type.endswith(("statement", "declaration", "_item")):
        return None
    return last


def rust_div(a: int, b: int) -> int | None:
    """Rust's integer division: truncating toward zero; None for a division by zero."""
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def rust_rem(a: int, b: int) -> int | None:
    """Rust's integer remainder (of the truncating division); None for a division by zero."""
    q = rust_div(a, b)
    return None if q is None else a - b * q


# Rust's binary operators on two ints, and on two floats (None: Rust panics or the result is
# not a number the evaluator keeps)
INT_OPS: dict[str, Any] = {
    "+": int.__add__, "-": int.__sub__, "*": int.__mul__, "/": rust_div, "%": rust_rem,
    "<<": lambda a, b: a << b if 0 <= b < 128 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 128 else None,
    "&": int.__and__, "|": int.__or__, "^": int.__xor__,
}  # fmt: skip
FLOAT_OPS: dict[str, Any] = {
    "+": float.__add__, "-": float.__sub__, "*": float.__mul__,
    "/": lambda a, b: a / b if b != 0.0 else None,
}  # fmt: skip

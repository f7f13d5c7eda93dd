"""Constant arithmetic in a default of burn's config table (`1.0 / 3.0`, `2 * 64`, `-(1 << 4)`):
the value Rust computes, so a field left at such a default is known like a literal one
(`values.parse_default` reads the literals; this reads the operators between them).

Rust's rules: `+ - * / %` and shifts between two ints or two floats (never mixed: Rust would
not compile it), integer `/` and `%` truncating toward zero; a division by zero, an overflow
past i128 or anything else (a call, a path, a cast) is unknown (None).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# a number literal first (`1e-5` holds a `-`), then the operators, then any other word
_NUMBER = r"\d[\d_]*(?:\.[\d_]*)?(?:[eE][+-]?[\d_]+)?(?:_?[uif](?:8|16|32|64|128|size))?"
_TOKEN = re.compile(rf"\s*({_NUMBER}(?![\w.])|<<|>>|[-+*/%()]|[^-+*/%()<>\s]+)")
_LEVELS = (("<<", ">>"), ("+", "-"), ("*", "/", "%"))  # lowest binding first
_LIMIT = 1 << 127

Leaf = Callable[[str], Any]  # a literal's value, or None


def constant_value(text: str, leaf: Leaf) -> int | float | None:
    """The value of the arithmetic expression `text` whose literals `leaf` reads."""
    tokens = _tokens(text)
    if tokens is None or not tokens:
        return None
    parser = _Parser(tokens, leaf)
    found = parser.level(0)
    return found if parser.at == len(tokens) else None


def _tokens(text: str) -> list[str] | None:
    out: list[str] = []
    at = 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            return None if text[at:].strip() else out
        out.append(match.group(1))
        at = match.end()
    return out


class _Parser:
    """Precedence climbing over the tokens; every method answers None when unknown."""

    def __init__(self, tokens: list[str], leaf: Leaf) -> None:
        self.tokens, self.leaf, self.at = tokens, leaf, 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def level(self, index: int) -> int | float | None:
        if index == len(_LEVELS):
            return self.unary()
        left = self.level(index + 1)
        while left is not None and self.peek() in _LEVELS[index]:
            op = self.tokens[self.at]
            self.at += 1
            right = self.level(index + 1)
            left = _apply(op, left, right) if right is not None else None
        return left

    def unary(self) -> int | float | None:
        token = self.peek()
        if token is None:
            return None
        self.at += 1
        if token == "-":
            inner = self.unary()
            return -inner if inner is not None else None
        if token == "(":
            inner = self.level(0)
            if self.peek() != ")":
                return None
            self.at += 1
            return inner
        value = self.leaf(token)
        return value if type(value) in (int, float) else None


def _apply(op: str, a: int | float, b: int | float) -> int | float | None:
    if type(a) is not type(b):
        return None
    if type(a) is float:
        if op in ("<<", ">>", "%") or (op == "/" and b == 0):
            return None  # `%` of floats is legal Rust, but no default writes it
        return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
    if not (isinstance(a, int) and isinstance(b, int)):
        return None
    if op in ("/", "%"):
        if b == 0:
            return None
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        out = quotient if op == "/" else a - b * quotient
    elif op in ("<<", ">>"):
        if not 0 <= b < 128:
            return None
        out = a << b if op == "<<" else a >> b
    else:
        out = a + b if op == "+" else a - b if op == "-" else a * b
    return out if -_LIMIT <= out < _LIMIT else None

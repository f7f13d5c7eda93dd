"""Values written as ranges and inside macros: `a..b` and its forms as burn's `Slice`
(`{"start", "end", "step"}` with the parts known), `s![..]` as a list of them, `vec![..]` as
the list it builds. Names inside a macro are tokens: they are read as the names they spell,
where the macro is (a local, a const of the crate), never by a guess.
"""

from __future__ import annotations

import re
from typing import Any

from panic_lens.evaluate.literals import parse_float_literal, parse_int_literal
from panic_lens.evaluate.state import Frame, State, Value
from panic_lens.rust.syntax import Node, child_by_field, span_of

_UNKNOWN = object()
_IDENT = re.compile(r"[A-Za-z_]\w*")


def range_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """`a..b`, `a..=b`, `a..`, `..b`, `..=b`, `..` as the burn `Slice` it converts to
    (`end` null: to the end)."""
    op = next((c for c in node.children if c.type in ("..", "..=")), None)
    if op is None:
        return None
    start = next((c for c in node.named_children if c.end_byte <= op.start_byte), None)
    end = next((c for c in node.named_children if c.start_byte >= op.end_byte), None)
    low = st.value(start, frame, depth + 1) if start is not None else Value(0, span_of(node))
    high = st.value(end, frame, depth + 1) if end is not None else None
    bound: Any = high.value if high is not None else _UNKNOWN
    if end is None:
        bound = None
    low_value = low.value if low is not None else _UNKNOWN
    return Value(slice_of(low_value, bound, op.type == "..=", 1), span_of(node), path=st.unit.path)


def slice_of(start: Any, end: Any, inclusive: bool, step: Any) -> dict[str, Any]:
    """burn's `Slice` of a range: an inclusive end `b` is `b + 1`, or no end for `-1`; the
    parts not known are left out."""
    if inclusive and type(end) is int:
        end = None if end == -1 else end + 1
    parts = {"start": start, "end": end, "step": step}
    return {k: v for k, v in parts.items() if v is not _UNKNOWN and type(v) in (int, type(None))}


def macro_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    macro = child_by_field(node, "macro")
    name = st.unit.text(macro).rsplit("::", 1)[-1] if macro is not None else ""
    tokens = next((c for c in node.named_children if c.type == "token_tree"), None)
    if tokens is None:
        return None
    if name == "vec":
        return _vec(node, tokens, st, frame)
    if name == "s":
        return _slices(node, tokens, st, frame)
    return None


def _parts(tokens: Node, st: State) -> list[tuple[str, list[Node]]]:
    """The comma-separated parts of a macro's tokens: each part's text and its nodes."""
    body = st.unit.text(tokens)[1:-1]
    base = tokens.start_byte + 1
    out: list[tuple[str, list[Node]]] = []
    depth, start = 0, 0
    for at, ch in enumerate(body + ","):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif (ch == "," and depth == 0) or at == len(body):
            text = body[start:at]
            lo, hi = base + start, base + at
            nodes = [c for c in tokens.named_children if lo <= c.start_byte and c.end_byte <= hi]
            if text.strip():
                out.append((text, nodes))
            start = at + 1
    return out


def _token(text: str, nodes: list[Node], st: State, frame: Frame) -> Any:
    """A literal, or a name (a local bound to a value, a const of the crate), else _UNKNOWN."""
    text = text.strip()
    negative = text.startswith("-")
    digits = text.removeprefix("-").strip()
    if digits[:1].isdigit():
        number: Any = parse_int_literal(digits)
        if number is None:
            number = parse_float_literal(digits)
        return _UNKNOWN if number is None else (-number if negative else number)
    if text in ("true", "false"):
        return text == "true"
    if _IDENT.fullmatch(text) and len(nodes) == 1 and nodes[0].type == "identifier":
        found = st.value(nodes[0], frame, 1)
        return found.value if found is not None else _UNKNOWN
    if "::" in text and _IDENT.fullmatch(text.replace("::", "").replace(" ", "")):
        item = st.item_at(nodes[0]) if len(nodes) == 1 else None
        if item is None:
            owner, _, variant = text.replace(" ", "").rpartition("::")
            if owner.rsplit("::", 1)[-1][:1].isupper() and variant[:1].isupper():
                return variant
    return _UNKNOWN


def _vec(node: Node, tokens: Node, st: State, frame: Frame) -> Value | None:
    parts = _parts(tokens, st)
    if len(parts) == 1 and ";" in parts[0][0]:
        text, nodes = parts[0]
        item_text, _, count_text = text.rpartition(";")
        cut = tokens.start_byte + 1 + len(st.unit.text(tokens)[1:].split(";", 1)[0])
        item = _token(item_text, [n for n in nodes if n.end_byte <= cut], st, frame)
        count = _token(count_text, [n for n in nodes if n.start_byte > cut], st, frame)
        if item is _UNKNOWN or type(count) is not int or not 0 <= count <= 64:
            return None
        return Value([item] * count, span_of(node), path=st.unit.path)
    items = [_token(text, nodes, st, frame) for text, nodes in parts]
    if any(i is _UNKNOWN for i in items):
        return None
    return Value(items, span_of(node), path=st.unit.path)


def _slices(node: Node, tokens: Node, st: State, frame: Frame) -> Value | None:
    """burn's `s![..]`: one slice per part, `range;step` giving the step, an index `i` being
    `i..=i`. The list's length is always known; each slice has the parts that are known."""
    parts = _parts(tokens, st)
    if not parts:
        return None
    out = []
    for text, nodes in parts:
        spec, _, step_text = text.partition(";")
        step = _int(step_text, nodes, st, frame) if step_text.strip() else 1
        found = re.fullmatch(r"\s*(.*?)\s*\.\.(=?)\s*(.*?)\s*", spec, re.S)
        if found is None:  # an index
            at = _int(spec, nodes, st, frame)
            out.append(slice_of(at, at, True, step))
            continue
        low, inclusive, high = found.groups()
        start = _int(low, nodes, st, frame) if low else 0
        end = _int(high, nodes, st, frame) if high else None
        out.append(slice_of(start, end, bool(inclusive), step))
    return Value(out, span_of(node), path=st.unit.path)


_INT_CAST = re.compile(r"(.*?)\s+as\s+(?:[ui](?:8|16|32|64|128|size))", re.S)


def _int(text: str, nodes: list[Node], st: State, frame: Frame) -> Any:
    """An int part of `s![..]`: a literal or a single name (looked up by its own token), or
    one of those cast to an integer type (`step as isize`)."""
    text = text.strip()
    cast = _INT_CAST.fullmatch(text)
    if cast is not None:
        text = cast.group(1).strip()
    named = [n for n in nodes if n.type == "identifier" and st.unit.text(n) == text]
    found = _token(text, named[:1], st, frame)
    return found if type(found) is int else _UNKNOWN

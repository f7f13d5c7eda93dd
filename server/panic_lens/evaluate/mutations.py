"""A `let mut` list or number changed by plain statements before a read: after

    let mut weights = vec![1.0; 4];
    weights[2] = 0.0;
    weights.push(0.5);

`weights` is `[1.0, 1.0, 0.0, 1.0, 0.5]`. Every statement between the `let` and the read's
statement that may change the list (`locals`) must be one of these changes, written in the
`let`'s own block (a change in a loop, a branch or a closure is not a statement of that block,
and leaves the list unknown), with its index and values known: `x[i] = v`, `push`, `insert`,
`pop`, `truncate`, `clear`, `reverse`, `extend`/`extend_from_slice` of a known list; for a
number, `n op= v` (`+ - * /`) and `n = v`. Anything else leaves it unknown.
"""

from __future__ import annotations

import re
from typing import Any

from panic_lens.evaluate.literals import FLOAT_OPS, INT_OPS
from panic_lens.evaluate.locals import _loop_around, _may_change
from panic_lens.evaluate.state import Frame, State, Value
from panic_lens.rust.locals import LocalBinding
from panic_lens.rust.syntax import Node, child_by_field, method_call, span_of

MAX_ITEMS = 64


def changed_value(
    ident: Node, found: LocalBinding, st: State, frame: Frame, depth: int
) -> Value | None:
    """The list or number a `let mut` name holds at `ident`, after the plain changes before
    it."""
    binding = found.decl.parent
    while binding is not None and binding.type == "mut_pattern":
        binding = binding.parent
    block = binding.parent if binding is not None else None
    if found.kind != "let" or binding is None or binding.type != "let_declaration":
        return None
    if block is None or block.type != "block" or found.value is None:
        return None
    read = ident
    while read.parent is not None and read.parent.id != block.id:
        read = read.parent
    if read.parent is None or read.start_byte < binding.end_byte:
        return None  # the read is not in the let's block after it
    name = found.name.encode()
    if _may_change(st.unit.src[read.start_byte : ident.start_byte], name):
        return None
    loop = _loop_around(ident, binding.end_byte, st.unit.root)
    if loop is not None and _may_change(st.unit.src[loop.start_byte : loop.end_byte], name):
        return None  # a later turn of a loop around the read sees its changes
    start = st.value(found.value, frame, depth + 1)
    if start is None or type(start.value) not in (list, int, float):
        return None
    held: Any = list(start.value) if isinstance(start.value, list) else start.value
    for stmt in block.named_children:
        if stmt.start_byte < binding.end_byte or stmt.start_byte >= read.start_byte:
            continue
        if not _may_change(_reads_out(st.unit.src[stmt.start_byte : stmt.end_byte], name), name):
            continue  # (reads it only: `let n = w.len();`)
        if isinstance(held, list):
            held = _applied(stmt, found.name, held, st, frame, depth)
            if held is not None and len(held) > MAX_ITEMS:
                held = None
        else:
            held = _computed(stmt, found.name, held, st, frame, depth)
        if held is None:
            return None
    return Value(held, span_of(ident), None, f"{found.name} after its changes", st.unit.path)


def _computed(
    stmt: Node, name: str, number: int | float, st: State, frame: Frame, depth: int
) -> int | float | None:
    """`number` after the statement `stmt`: `name op= v` (`+ - * /` as Rust computes them, of
    the same type) or `name = v`, with `v` known; else None."""
    expr = stmt.named_children[0] if stmt.type == "expression_statement" else None
    if expr is None or len(stmt.named_children) != 1:
        return None
    left, right = child_by_field(expr, "left"), child_by_field(expr, "right")
    if left is None or right is None or st.unit.text(left) != name:
        return None
    given = _known(right, st, frame, depth)
    if type(given) is not type(number):
        return None
    if expr.type == "assignment_expression":
        return given
    operator = child_by_field(expr, "operator")
    op = st.unit.text(operator).removesuffix("=") if operator is not None else ""
    if expr.type != "compound_assignment_expr" or op not in _FOLLOWED:
        return None
    result: int | float | None = (INT_OPS if type(number) is int else FLOAT_OPS)[op](number, given)
    return result


_FOLLOWED = frozenset({"+", "-", "*", "/"})  # the compound assignments read (`n *= 4`)


def _applied(
    stmt: Node, name: str, items: list[Any], st: State, frame: Frame, depth: int
) -> list[Any] | None:
    """`items` after the statement `stmt`, one of the plain changes of `name`; else None."""
    expr = stmt.named_children[0] if stmt.type == "expression_statement" else None
    if expr is None or len(stmt.named_children) != 1:
        return None
    if expr.type == "assignment_expression":  # `name[i] = v`
        left, right = child_by_field(expr, "left"), child_by_field(expr, "right")
        if left is None or right is None or left.type != "index_expression":
            return None
        base, index = [*left.named_children, None, None][:2]
        if base is None or index is None or st.unit.text(base) != name:
            return None
        at, value = _known(index, st, frame, depth), _known(right, st, frame, depth)
        if type(at) is not int or value is _UNKNOWN or not 0 <= at < len(items):
            return None  # (out of range: Rust panics there)
        return [*items[:at], value, *items[at + 1 :]]
    parts = method_call(expr) if expr.type == "call_expression" else None
    if parts is None or st.unit.text(parts[0]) != name:
        return None
    method, args = st.unit.text(parts[1]), [_known(a, st, frame, depth) for a in parts[2]]
    if any(a is _UNKNOWN for a in args):
        return None
    return _METHODS.get((method, len(args)), _none)(items, *args)


_UNKNOWN = object()


def assigned_let(found: LocalBinding, st: State) -> LocalBinding | None:
    """The `let` a compound assignment (`x *= 4;`, which the locals read as a binding of the
    statement) changes, through the assignments before it."""
    for _ in range(MAX_ITEMS):
        if found.kind == "let":
            return found
        expr = found.decl.named_children[0] if found.decl.named_children else None
        if found.decl.type != "expression_statement" or expr is None:
            return None
        left = child_by_field(expr, "left") if expr.type == "compound_assignment_expr" else None
        before = st.binding(left) if left is not None and left.type == "identifier" else None
        if before is None:
            return None
        found = before
    return None


# methods of a list that only read it
_READS = rb"len|is_empty|iter|clone|get|first|last|contains|to_vec"


def _reads_out(text: bytes, name: bytes) -> bytes:
    """`text` without its calls of `name`'s methods that only read it."""
    word = re.escape(name)
    return re.sub(rb"(?<![\w.])" + word + rb"\s*\.\s*(?:" + _READS + rb")\s*\(", b"(", text)


def _known(node: Node, st: State, frame: Frame, depth: int) -> Any:
    found = st.value(node, frame, depth + 1)
    return _UNKNOWN if found is None else found.value


def _none(*_: Any) -> None:
    return None


def _insert(items: list[Any], at: Any, value: Any) -> list[Any] | None:
    return [*items[:at], value, *items[at:]] if type(at) is int and 0 <= at <= len(items) else None


def _extend(items: list[Any], more: Any) -> list[Any] | None:
    return [*items, *more] if isinstance(more, list) else None


_METHODS: dict[tuple[str, int], Any] = {
    ("push", 1): lambda items, v: [*items, v],
    ("insert", 2): _insert,
    ("pop", 0): lambda items: items[:-1],
    ("truncate", 1): lambda items, n: items[:n] if type(n) is int and n >= 0 else None,
    ("clear", 0): lambda items: [],
    ("reverse", 0): lambda items: items[::-1],
    ("extend", 1): _extend,
    ("extend_from_slice", 1): _extend,
}

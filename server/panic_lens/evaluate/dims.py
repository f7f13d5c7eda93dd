"""A tensor's dims as values: the dims a shape argument writes (`[N, S]`, `Shape::new(..)`,
`x.dims()`), the dims code reads back (`x.dims()`, `x.shape()`, `x.dims()[i]`, the names
`let [batch, _, d] = x.dims();` binds), and, for the shape a constructor made, where it was made
and where each of its dims was written (what a finding's notes point at). The shapes
themselves are `evaluate.tensors`' (asked through `State.shape`).
"""

from __future__ import annotations

from typing import Any

from panic_lens.evaluate import shapes
from panic_lens.evaluate.literals import strip
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.shapes import Shape
from panic_lens.evaluate.state import MAX_DEPTH, Frame, State, Value
from panic_lens.rust.syntax import Node, call_parts, child_by_field, method_call, path_segments


def dims_arg(
    arg: Node | None, st: State, frame: Frame, depth: int
) -> tuple[shapes.Dim, ...] | None:
    """A shape argument (`[N, S]`, `Shape::new([..])`, a local bound to one): its dims, each
    known or not; None when even its length is unknown."""
    arg = strip(arg)
    for _ in range(MAX_DEPTH):
        if arg is None:
            return None
        if arg.type == "identifier":
            found = st.binding(arg)
            if found is None:
                return None
            arg = strip(bound_value(arg, found, st.unit.src, st.unit.root))
            continue
        if arg.type == "call_expression":
            callee, inner = call_parts(arg)
            segments = path_segments(callee, st.unit.src) if callee is not None else None
            if segments and segments[-2:] in (["Shape", "new"], ["Shape", "from"]) and inner:
                arg = strip(inner[0])
                continue
            read = dims_read(arg, st, frame, depth)  # `x.dims()` / `x.shape()` of a tensor
            if read is not None:
                return read
            of = st.shape(arg, frame, depth + 1)
            return None if of is None else of.dims
        break
    if arg is None or arg.type != "array_expression" or child_by_field(arg, "length"):
        return None
    out: list[shapes.Dim] = []
    written: list[Value | None] = []
    for item in arg.named_children:
        if "comment" in item.type:
            continue
        found_value = st.value(item, frame, depth + 1)
        if found_value is not None and type(found_value.value) is int:
            out.append(found_value.value)
            written.append(found_value)
        else:
            out.append(_dim_of(item, st, frame, depth))
            written.append(None)
    dims = tuple(out)
    st.memo[("dim-values", id(dims))] = (dims, written)  # where each dim was written
    return dims


def note_made(found: Shape, span: Any, step: str, st: State) -> None:
    """Remember that `step` at `span` (a constructor's call) made the shape's dims
    (`made_at`)."""
    st.memo[("made", id(found.dims))] = (found.dims, span, step)


def made_at(found: Shape, st: State) -> tuple[Any, str] | None:
    """(span, what) of the constructor call that made a shape's dims (`Tensor::zeros`), kept
    through the ops that keep the shape; None when not made by one."""
    hit = st.memo.get(("made", id(found.dims)))
    return (hit[1], hit[2]) if hit is not None and hit[0] is found.dims else None


def dim_value(found: Shape, index: int, st: State) -> Value | None:
    """Where the dim `index` of a shape was written, when it was an argument of the call that
    made the tensor (`zeros([2, WIDTH], d)`: the const `WIDTH`), kept through the ops that
    keep the shape."""
    hit = st.memo.get(("dim-values", id(found.dims)))
    if hit is None or hit[0] is not found.dims or not 0 <= index < len(hit[1]):
        return None
    return hit[1][index]


def _dim_of(item: Node, st: State, frame: Frame, depth: int) -> shapes.Dim:
    """A dim written as `x.dims()[i]` (or through a `let` of one), or a name a slice pattern
    binds from `x.dims()`: that dim of x's shape."""
    node = strip(item)
    if node is not None and node.type == "identifier":
        found = st.binding(node)
        if found is not None and found.kind == "pattern":
            return pattern_dim(node, found, st, frame, depth)
        bound = bound_value(node, found, st.unit.src, st.unit.root) if found else None
        node = strip(bound)
    if node is None or node.type != "index_expression" or len(node.named_children) != 2:
        return None
    base, index = node.named_children
    at = st.value(index, frame, depth + 1)
    read = dims_read(base, st, frame, depth)
    dims = Shape(read, ()) if read is not None else st.shape(base, frame, depth + 1)
    if at is None or type(at.value) is not int or dims is None:
        return None
    return dims.dim(at.value)


def dims_read(
    node: Node | None, st: State, frame: Frame, depth: int
) -> tuple[shapes.Dim, ...] | None:
    """The dims a tensor's `x.dims()`, `x.shape()` or `x.shape().dims()` returns, each an int,
    a `Sym` or None; None when `node` is none of those or x's rank is unknown."""
    parts = method_call(node) if (node := strip(node)) is not None else None
    if parts is None or parts[2] or st.unit.text(parts[1]) not in ("dims", "shape"):
        return None
    receiver = parts[0]
    if st.unit.text(parts[1]) == "dims":  # `x.shape().dims()`
        inner = method_call(strip(receiver) or receiver)
        if inner is not None and not inner[2] and st.unit.text(inner[1]) == "shape":
            receiver = inner[0]
    found = st.shape(receiver, frame, depth + 1)
    return found.dims if found is not None else None


def pattern_dim(ident: Node, found: Any, st: State, frame: Frame, depth: int) -> shapes.Dim:
    """A name bound by a slice pattern from a tensor's dims (`let [batch, _, width] =
    x.dims();`, `let [.., h, w] = x.shape().dims();`): that dim of x's shape in `frame` (an
    int, a `Sym` or None). A `mut` name is not one: it may change."""
    pattern = found.decl
    let = pattern.parent
    if pattern.type != "slice_pattern" or let is None or let.type != "let_declaration":
        return None
    elems = [
        c for c in pattern.children if c.type not in ("[", ",", "]") and "comment" not in c.type
    ]
    name = st.unit.text(ident)
    at = next((i for i, e in enumerate(elems)
               if e.type == "identifier" and st.unit.text(e) == name), None)  # fmt: skip
    rest = next((i for i, e in enumerate(elems) if e.type == "remaining_field_pattern"), None)
    dims = dims_read(child_by_field(let, "value"), st, frame, depth) if at is not None else None
    if at is None or dims is None or (rest is None and len(elems) != len(dims)):
        return None
    index = at if rest is None or at < rest else len(dims) - (len(elems) - at)
    return dims[index] if 0 <= index < len(dims) else None

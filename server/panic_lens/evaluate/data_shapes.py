"""The shapes of data that becomes a tensor: array literals (`[[1, 2], [3, 4]]`, `[[0; 9]; 2]`),
a const or static array of the crate, an array of numbers a caller passes, and the list of
unknown length a `.map(..).collect()` makes (`shapes.Many`)."""

from __future__ import annotations

from typing import Any

from panic_lens.evaluate import shapes
from panic_lens.evaluate.literals import at, strip
from panic_lens.evaluate.shapes import Shape
from panic_lens.evaluate.state import Frame, State, state_for
from panic_lens.rust.syntax import Node, child_by_field, method_call

MAX_ARRAY_RANK = 8
_SITE = Frame()  # a const's value, read where it is written (no call followed)


def item_shape(name: Node, st: State, depth: int) -> Shape | None:
    """The shape of the array a const or static of the crate holds (`const ANCHORS: [[f32; 2];
    3] = [..]`, read as `from_data(ANCHORS, d)`), evaluated in its own file."""
    item = st.item_at(name)
    if item is None or item.node.type not in ("const_item", "static_item"):
        return None
    body = child_by_field(item.node, "value")
    if body is None:
        return None
    owner = state_for(item.unit, st)
    owner.steps = st.steps
    found = owner.shape(body, _SITE, depth + 1)
    st.steps = max(st.steps, owner.steps)
    return found.then(f"{st.unit.text(name)} at {at(body)}") if found is not None else None


def array_shape(array: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """Dims of a nested array literal: `[[1, 2], [3, 4]]` -> [2, 2]; `[[0; 9]; 2]` -> [2, 9]."""
    dims: list[shapes.Dim] = []
    node: Node | None = array
    items: list[Node] = []
    while node is not None and node.type == "array_expression" and len(dims) < MAX_ARRAY_RANK:
        length = child_by_field(node, "length")
        elems = [c for c in node.named_children if c != length and "comment" not in c.type]
        if length is not None:
            count = st.value(length, frame, depth + 1)
            dims.append(count.value if count is not None and type(count.value) is int else None)
        else:
            dims.append(len(elems))
        node = elems[0] if elems else None
        items = elems
    # arrays are homogeneous: one element that is never an array makes them all scalars
    scalar = node is not None and any(_a_scalar(item, st) for item in items)
    if node is not None and node.type != "array_expression" and not scalar:
        # an element that may itself be an array (`[[image]]`, `[row(0), row(1)]`): the
        # rank is known only when its value is
        inner = st.value(node, frame, depth + 1)
        if inner is None:
            return None
        nested = inner.value
        while isinstance(nested, list) and len(dims) < MAX_ARRAY_RANK:
            dims.append(len(nested))
            nested = nested[0] if nested else None
    return Shape(tuple(dims), (f"array literal {shapes.format_dims(dims)} at {at(array)}",))


def list_shape(items: list[Any], step: str) -> Shape | None:
    """The dims of a nested list of numbers (an array passed as data): each level's length,
    while every item of it is a list of one length; None for an empty or ragged list, or one
    whose items are no numbers."""
    dims: list[shapes.Dim] = []
    level: Any = items
    while isinstance(level, list) and len(dims) < MAX_ARRAY_RANK:
        if not level:
            return None
        dims.append(len(level))
        if any(isinstance(i, list) != isinstance(level[0], list) for i in level):
            return None
        if isinstance(level[0], list) and any(len(i) != len(level[0]) for i in level):
            return None
        if not isinstance(level[0], list) and not all(type(i) in (int, float, bool) for i in level):
            return None  # not numbers (a list of tensors, of strings): no data
        level = level[0]
    return Shape(tuple(dims), (step,))


def _a_scalar(node: Node, st: State) -> bool:
    return node.type in _SCALARS or (
        node.type == "unary_expression" and st.unit.text(node)[:1] in ("-", "!")
    )


# elements that are never an array: a number, a bool, arithmetic (no array has any), a cast
# (and a negation, `-x` or `!x`, but not a dereference)
_SCALARS = frozenset(
    {"integer_literal", "float_literal", "boolean_literal", "binary_expression",
     "type_cast_expression"}
)  # fmt: skip


def collected(node: Node, st: State, frame: Frame, depth: int) -> shapes.Many | None:
    """`xs.iter().map(|x| ..).collect()` (a turbofish or not): a list of unknown length of
    the tensors the last `.map` closure makes, when every one has the same known shape (its
    body evaluated with its parameter unknown, or the value an earlier `.map` gives it)."""
    parts = method_call(node) if node.type == "call_expression" else None
    if parts is None or st.unit.text(parts[1]) != "collect" or parts[2]:
        return None
    mapped = method_call(parts[0]) if parts[0].type == "call_expression" else None
    if mapped is None or st.unit.text(mapped[1]) != "map" or len(mapped[2]) != 1:
        return None
    closure = strip(mapped[2][0])
    body = child_by_field(closure, "body") if closure is not None else None
    if closure is None or closure.type != "closure_expression" or body is None:
        return None
    item = st.shape(body, frame, depth + 1)
    if item is None or item.dims is None:
        return None
    # a run-time dim may differ from item to item: only the ints are every item's
    dims = tuple(d if shapes.is_int(d) else None for d in item.dims)
    return shapes.Many(item.to(dims, f"each item .map makes at {at(closure)}"))

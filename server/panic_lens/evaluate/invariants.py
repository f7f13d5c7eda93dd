"""A tensor a loop reassigns, read after the loop: `for block in &self.blocks { x =
block.forward(x); }` keeps `x`'s shape when every assignment of `x` in the loop's body gives
back the shape `x` had before the loop (a norm, an activation, `x * 2.0 + 1.0`), evaluated
with `x` holding that shape. Then `x` has it after any number of turns, none included.

Anything else the loop does to `x` (`x += ..`, `&mut x`, a method that may change it, an
assignment of another shape) leaves it unknown, as every value changed in a loop.
"""

from __future__ import annotations

import re

from panic_lens.evaluate import calls
from panic_lens.evaluate.locals import _may_change
from panic_lens.evaluate.shapes import Shape
from panic_lens.evaluate.state import Frame, State, Value
from panic_lens.rust.locals import LocalBinding
from panic_lens.rust.syntax import Node, child_by_field, nodes_of_kinds, span_of

_LOOPS = frozenset({"for_expression", "while_expression", "loop_expression"})
_ASSIGNMENTS = frozenset({"assignment_expression"})


def shape_after_loop(
    ident: Node, found: LocalBinding, st: State, frame: Frame, depth: int
) -> Shape | None:
    """The shape of `ident`, bound by a loop statement that reassigns it (`found`), when
    every turn keeps the shape it entered with."""
    statement = found.decl
    loop = statement.named_children[0] if statement.named_children else None
    if statement.type != "expression_statement" or loop is None or loop.type not in _LOOPS:
        return None
    body = child_by_field(loop, "body")
    name = found.name
    if body is None:
        return None
    assigned = [
        a for a in nodes_of_kinds(body, _ASSIGNMENTS, body.start_byte, body.end_byte)
        if (left := child_by_field(a, "left")) is not None and st.unit.text(left) == name
    ]  # fmt: skip
    rest = _without(st.unit.src, body, assigned)
    if not assigned or _may_change(rest, name.encode()):
        return None  # changed otherwise than by `x = ..` (or not assigned at all)
    entering = _before(loop, name, st, frame, depth)
    if entering is None or entering.dims is None:
        return None
    key = [loop.id, id(frame), ("entering", repr(entering.dims))]
    given = {name: Value(None, span_of(loop), None, shape=entering)}
    inner = calls._frame(st, key, frame, loop, given, frame.label, frame)
    for assignment in assigned:
        right = child_by_field(assignment, "right")
        turned = st.shape(right, inner, depth + 1) if right is not None else None
        if turned is None or turned.dims != entering.dims:
            return None
    return entering.then(f"kept by every turn of the loop at line {loop.start_point[0] + 1}")


def entering(ident: Node, found: LocalBinding, frame: Frame) -> Shape | None:
    """Inside a loop being checked by `shape_after_loop`: the shape a read of the name bound
    before the loop (`found`, its `let`) has in the turn's frame."""
    here: Frame | None = frame
    while here is not None:
        loop = here.fn
        given = here.args.get(found.name) if loop is not None and loop.type in _LOOPS else None
        inside = loop is not None and loop.start_byte <= ident.start_byte < loop.end_byte
        before = loop is not None and found.decl.start_byte < loop.start_byte
        if isinstance(given, Value) and inside and before:
            shape: Shape | None = given.shape
            return shape
        here = here.parent
    return None


def _without(src: bytes, body: Node, assignments: list[Node]) -> bytes:
    """The body's text with the assignments blanked (what else may change `x`); an assignment
    whose value lends something mutably is kept (`x = f(&mut x)`)."""
    text = bytearray(src[body.start_byte : body.end_byte])
    for assignment in assignments:
        if b"&mut" in src[assignment.start_byte : assignment.end_byte]:
            continue
        start, stop = assignment.start_byte - body.start_byte, assignment.end_byte - body.start_byte
        text[start:stop] = b" " * (stop - start)
    return bytes(text)


def _before(loop: Node, name: str, st: State, frame: Frame, depth: int) -> Shape | None:
    """`name`'s shape where the loop starts: as a read of it right there would see it (its
    first read in the loop's body, asked outside the loop's turns)."""
    body = child_by_field(loop, "body")
    word = re.compile(rb"(?<![\w.])" + re.escape(name.encode()) + rb"(?!\w)")
    found = word.search(st.unit.src, loop.start_byte, body.end_byte if body else loop.end_byte)
    read = st.unit.root.descendant_for_byte_range(found.start(), found.end()) if found else None
    binding = st.binding(read) if read is not None and read.type == "identifier" else None
    if binding is None or binding.kind != "let" or binding.value is None:
        return None
    value_end = binding.value.end_byte
    if value_end > loop.start_byte or _may_change(st.unit.src[value_end : loop.start_byte],
                                                  name.encode()):  # fmt: skip
        return None  # changed between its `let` and the loop
    found_shape: Shape | None = st.shape(binding.value, frame, depth + 1)
    return found_shape

"""The evaluator of values and shapes: what a Rust expression of the user's code holds at one
point (ints, floats, bools, strings, variants, lists, slices, tensors with partial shapes),
following Rust's scopes (`scope`), locals (`locals`), the crate's consts and functions
(`calls`), branches (`flow`), with burn's tensor ops read from a table (`ops`). It reads
`rust/` facts and knows no rule (docs/architecture.md).

Every entry point answers in bounded time (`state`: depth and step budgets) and memoises per
file and call context; anything not followed is unknown (None), never a default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from panic_lens.evaluate import (
    callers,
    dims,
    fields,
    flow,
    lengths,
    literals,
    loops,
    tensors,
    values,
)
from panic_lens.evaluate.shapes import Shape
from panic_lens.evaluate.state import Fields, Frame, OutOfBudget, Value, state_if_any, state_of
from panic_lens.rust.syntax import Node

__all__ = [
    "Shape", "Value", "dim_of", "framed_bodies", "frames_at", "int_of", "length_of",
    "loop_frames", "shape_of", "tensor_of", "value_of",
]  # fmt: skip

TOP = Frame()  # the frame of a question asked at a point (no call followed, no loop)


def _ask(what: Any, node: Node | None, facts: Any, frame: Frame | None = None) -> Any:
    if node is None:
        return None
    st = state_of(facts)
    outer = st.steps
    if not st.asking:
        st.steps = 0
    st.asking += 1
    try:
        return what(node, st, frame or TOP)
    except (OutOfBudget, RecursionError):
        return None
    finally:
        st.asking -= 1
        if st.asking:
            st.steps = max(st.steps, outer)


def value_of(node: Node | None, facts: Any, frame: Frame | None = None) -> Value | None:
    """The value of an expression (not a tensor's: `tensor_of`), or None when unknown; in
    `frame`, one of `loop_frames` (a loop's element known). A literal of a struct of the
    crate that is no config is a value inside the evaluator only (`self` in its methods): no
    rule reads its fields as those of a burn type."""
    found: Value | None = _ask(values.value, node, facts, frame)
    if found is not None and isinstance(found.value, Fields) and fields.own_struct(found.value):
        return None
    return found


def never_reached(node: Node, facts: Any, frame: Frame | None = None) -> bool:
    """Whether every execution leaves the function before `node` (a guard that always
    returns first: `if 48 % groups != 0 { return None; }` with `groups = 5`)."""
    return bool(_ask(flow.never_reached, node, facts, frame))


def loop_frames(node: Node, facts: Any) -> list[Frame]:
    """The frames of the literal `for` loops around `node` (one per element, labelled
    "for k = 4"); [] when none."""
    return _ask(lambda n, st, top: loops.frames_at(n, st, top), node, facts) or []


def frames_at(node: Node, facts: Any, about: Sequence[Node] | None = None) -> list[Frame]:
    """The frames `node` may be asked about in besides its own: one per element of the
    literal `for` loops around it (`loop_frames`), then one per call of its function in the
    file that gives the parameters `node` names known values (labelled "when called as
    norm(3, ..) at line 12"), when one of the `about` nodes (if given: the parts of `node`
    whose values decide) names a parameter; and when `node` is in such loops too, one per
    element inside each of those calls ("when called as f(48) at line 9, for k = 2"): a
    value may need both, the loop's element and the caller's argument."""
    in_loops = loop_frames(node, facts)
    by_callers = _ask(lambda n, st, top: callers.frames_at(n, st, top, about), node, facts) or []
    nested: list[Frame] = []
    for caller in by_callers if in_loops else ():
        nested += _ask(lambda n, st, top, c=caller: loops.frames_at(n, st, c), node, facts) or []
    return in_loops + by_callers + nested


def framed_bodies(facts: Any) -> frozenset[tuple[int, int]]:
    """The byte ranges of the function bodies of `facts` whose findings read their callers'
    arguments in this analysis (`frames_at`): an edit of another function re-runs them. An
    analysis that never asked the evaluator anything has none (and makes no evaluator)."""
    st = state_if_any(facts)
    return frozenset(callers.framed(st)) if st is not None else frozenset()


def length_of(node: Node | None, facts: Any, frame: Frame | None = None) -> int | None:
    """The number of items of a list whose items need not be known (`vec![x; n]`, a range
    collected through `.map`, a crate function's list), or None (`lengths`)."""
    found: int | None = _ask(lambda n, st, f: lengths.length(n, st, f, 0), node, facts, frame)
    return found


def int_of(node: Node | None, facts: Any) -> Value | None:
    """The value of an integer expression, or None."""
    found = value_of(node, facts)
    return found if found is not None and type(found.value) is int else None


def shape_of(node: Node | None, facts: Any, frame: Frame | None = None) -> Shape | None:
    """The shape of a tensor expression (dims each an int, a `Sym` or None), or None."""
    return _ask(tensors.shape, node, facts, frame)


def dim_of(node: Node | None, index: int, facts: Any) -> Value | None:
    """The dim `index` of a tensor expression's shape as a Value with its origin: where the
    call that made the tensor wrote it, else the tensor expression itself; None when unknown."""
    from panic_lens.evaluate.shapes import is_int
    from panic_lens.rust.syntax import span_of

    found = shape_of(node, facts)
    if found is None or node is None or found.dims is None or not 0 <= index < len(found.dims):
        return None
    dim = found.dims[index]
    if not is_int(dim):
        return None
    st = state_of(facts)
    written = dims.dim_value(found, index, st)
    if written is not None and written.value == dim:
        return written
    note = found.steps[0].split(" at ")[0] if found.steps else ""
    return Value(dim, span_of(node), None, note, st.unit.path, found, found.steps)


def made_at(found: Shape, facts: Any) -> tuple[Any, str] | None:
    """(span, what) of the call that made a shape (`Tensor::zeros`, `.reshape`), if known."""
    return dims.made_at(found, state_of(facts))


def tensor_of(node: Node | None, facts: Any, frame: Frame | None = None) -> Value | None:
    """A tensor expression's value as rules read it (`tensors.tensor_value`): its rank, and
    its dims as far as they are known; None when not even the rank is."""
    found = shape_of(node, facts, frame)
    if found is None or found.dims is None or node is None:
        return None
    st = state_of(facts)
    return tensors.tensor_value(
        found, _origin(found, literals.strip(node) or node), st.unit.path, literals.strip(node)
    )


def _origin(found: Shape, node: Node) -> Any:
    from panic_lens.rust.syntax import span_of

    return span_of(node)

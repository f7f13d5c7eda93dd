"""The length of a list whose items need not be known: an array (`[x; n]`, `vec![a, b]`), a
range collected through iterator adapters that keep one item per item (`(0..size * size).map(|i|
..).collect()`, `xs.iter().enumerate().map(..).collect::<Vec<_>>()`), a local bound to one, a
function of the crate that returns one, and an `if`/`match` whose branches agree.

`TensorData::new(checkerboard(32), [3, 32, 32])` with `fn checkerboard(size: usize) -> Vec<f32>
{ (0..size * size).map(..).collect() }` has 1,024 values for 3,072 elements: the count is
known although no value is. Adapters that may drop or add items (`filter`, `flat_map`,
`chain`, `take_while`..) make the length unknown; so does anything else not followed.
"""

from __future__ import annotations

from panic_lens.evaluate import calls, flow
from panic_lens.evaluate.literals import block_tail, strip
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import MAX_DEPTH, Frame, State
from panic_lens.rust.syntax import Node, call_parts, child_by_field, method_call

# methods that give one item per item of their receiver (iterators and collections alike)
_ONE_PER_ITEM = frozenset({
    "iter", "into_iter", "iter_mut", "map", "enumerate", "rev", "cloned", "copied", "collect",
    "to_vec", "clone", "to_owned", "into", "inspect",
})  # fmt: skip


def length(node: Node | None, st: State, frame: Frame, depth: int) -> int | None:
    """The number of items the list or iterator `node` holds in `frame`; None when unknown."""
    node = strip(node)
    if node is None or depth > MAX_DEPTH:
        return None
    st.tick()
    if node.type in ("array_expression", "identifier"):
        known = st.value(node, frame, depth + 1)  # (a const, a caller's list: its items known)
        if known is not None and isinstance(known.value, list):
            return len(known.value)
    if node.type == "array_expression":
        count = child_by_field(node, "length")
        if count is None:
            return len([c for c in node.named_children if "comment" not in c.type])
        found = st.value(count, frame, depth + 1)
        ok = found is not None and type(found.value) is int and found.value >= 0
        return found.value if ok else None  # type: ignore[union-attr]
    if node.type == "identifier":
        binding = st.binding(node)
        value = bound_value(node, binding, st.unit.src, st.unit.root) if binding else None
        return length(value, st, frame, depth + 1) if value is not None else None
    if node.type == "range_expression":
        ends = range_ends(node, st, frame, depth)
        return max(0, ends[1] - ends[0]) if ends is not None else None
    if node.type in ("if_expression", "match_expression", "block"):
        return _agreed(_branches(node, st, frame, depth), st, frame, depth)
    if node.type == "call_expression":
        return _call(node, st, frame, depth)
    return None


def range_ends(node: Node, st: State, frame: Frame, depth: int) -> tuple[int, int] | None:
    """The first value and the end past the last one of a range that Rust iterates, `a..b`
    (`(a, b)`) or `a..=b` (`(a, b + 1)`), both ends known ints; None otherwise."""
    ends = [c for c in node.named_children if "comment" not in c.type]
    if len(ends) != 2:
        return None
    low, high = (st.value(end, frame, depth + 1) for end in ends)
    if low is None or high is None or type(low.value) is not int or type(high.value) is not int:
        return None
    inclusive = b"..=" in st.unit.src[ends[0].end_byte : ends[1].start_byte]
    return low.value, high.value + (1 if inclusive else 0)


def _branches(node: Node, st: State, frame: Frame, depth: int) -> list[Node] | None:
    """What an `if` (the branch a known condition takes, else both), a `match` (the arms a
    known value may pick) or a block evaluates to; None when one way has no value."""
    if node.type == "block":
        tail = block_tail(node)
        return [tail] if tail is not None else None
    if node.type == "if_expression":
        return flow.if_branches(node, st, frame, depth)
    return flow.match_arms(node, st, frame, depth)


def _agreed(ways: list[Node] | None, st: State, frame: Frame, depth: int) -> int | None:
    if not ways:
        return None
    found = {length(way, st, frame, depth + 1) for way in ways}
    return found.pop() if len(found) == 1 else None


def _call(node: Node, st: State, frame: Frame, depth: int) -> int | None:
    """A one-item-per-item adapter of a list (`.map(f)`, `.collect()`), `.take(n)` and
    `.skip(n)` of one of known length, `Some(list)`, or a function of the crate whose every
    exit agrees."""
    parts = method_call(node)
    if parts is not None:
        receiver, method, args = parts
        name = st.unit.text(method)
        if name in _ONE_PER_ITEM and len(args) <= 1:
            return length(receiver, st, frame, depth + 1)
        if name in ("take", "skip") and len(args) == 1:
            whole = length(receiver, st, frame, depth + 1)
            count = st.value(args[0], frame, depth + 1) if whole is not None else None
            if whole is None or count is None or type(count.value) is not int:
                return None
            return min(whole, count.value) if name == "take" else max(0, whole - count.value)
    callee, args = call_parts(node)
    if callee is not None and st.unit.text(callee) == "Some" and len(args) == 1:
        return length(args[0], st, frame, depth + 1)  # `with_weights(Some(vec![..]))`
    fn = calls.callee_fn(node, st)
    inner = calls.frame_for(node, fn, st, frame, depth) if fn is not None else None
    if fn is None or inner is None:
        return None
    return calls.returned(fn, st, inner, depth, lambda owner, e, f, d: length(e, owner, f, d))

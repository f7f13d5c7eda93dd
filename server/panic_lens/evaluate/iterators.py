"""Iterator chains over lists whose items are known: `sizes.iter().sum::<usize>()`,
`ks.iter().copied().min().unwrap_or(1)`, `widths.iter().map(|w| w * 2).collect()`,
`channels.iter().filter(|&&c| c > 0).count()`, `xs.windows(2).map(|w| w[1] - w[0])..`.

An iterator is read as the list of the items it gives. A closure (`map`, `filter`, `any`,
`all`, `position`) is evaluated once per item, its parameter (`|x|`, `|&x|`, `|&&x|`) bound to
the item; a closure that gives no value for one item, a list of more than `MAX_ITEMS` items,
or an adapter not followed here makes the chain unknown. An `Option` is its value or None, as
everywhere in the evaluator (`first()` of an empty list is None, `unwrap_or` reads it).
"""

from __future__ import annotations

from typing import Any

from panic_lens.evaluate import calls, lengths
from panic_lens.evaluate.literals import block_tail, strip
from panic_lens.evaluate.state import MAX_DEPTH, Frame, State, Value
from panic_lens.rust.syntax import Node, child_by_field, method_call, span_of

MAX_ITEMS = 64

# methods that give the items of their receiver as they are
_SAME = frozenset({"iter", "into_iter", "copied", "cloned", "collect", "to_vec", "into_vec"})
ADAPTERS = _SAME | {"map", "filter", "rev", "enumerate", "skip", "take", "step_by", "zip",
                    "chain", "windows", "chunks"}  # fmt: skip
CONSUMERS = frozenset({"count", "sum", "product", "min", "max", "any", "all", "position",
                       "first", "last", "contains", "fold"})  # fmt: skip
METHODS = ADAPTERS | CONSUMERS


def chain_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """The value of the method call `node` (one of `METHODS`) on a list of known items."""
    parts = method_call(node)
    if parts is None or depth > MAX_DEPTH:
        return None
    receiver, method, args = parts
    name = st.unit.text(method)
    if name in ("copied", "cloned") and not args:  # also an `Option<&T>`'s: its value
        inner = st.value(receiver, frame, depth + 1)
        if inner is not None and not isinstance(inner.value, list):
            return inner
    if name in ADAPTERS:
        found = _adapted(name, receiver, args, st, frame, depth)
        return None if found is None else Value(found, span_of(node), path=st.unit.path)
    items = _items(receiver, st, frame, depth + 1)
    if items is None:
        return None
    result = _consumed(name, items, args, st, frame, depth)
    if result is _UNKNOWN:
        return None
    note = f"{st.unit.text(method)}() of {len(items)} items"
    return Value(result, span_of(node), None, note, st.unit.path, None, (note,))


_UNKNOWN = object()


def _items(node: Node | None, st: State, frame: Frame, depth: int) -> list[Any] | None:
    """The items a list or an iterator expression gives, when all are known."""
    node = strip(node)
    if node is None or depth > MAX_DEPTH:
        return None
    parts = method_call(node) if node.type == "call_expression" else None
    if parts is not None and st.unit.text(parts[1]) in ADAPTERS:
        return _adapted(st.unit.text(parts[1]), parts[0], parts[2], st, frame, depth)
    if node.type == "range_expression":  # `(0..4)`, `(1..=n)` with both ends known
        ends = lengths.range_ends(node, st, frame, depth)
        return list(range(*ends)) if ends is not None and ends[1] - ends[0] <= MAX_ITEMS else None
    found = st.value(node, frame, depth + 1)
    if found is None or not isinstance(found.value, list) or len(found.value) > MAX_ITEMS:
        return None
    return list(found.value)


def _adapted(
    name: str, receiver: Node, args: list[Node], st: State, frame: Frame, depth: int
) -> list[Any] | None:
    items = _items(receiver, st, frame, depth + 1)
    if items is None:
        return None
    if name in _SAME:
        return items if not args else None
    if name == "rev" and not args:
        return items[::-1]
    if name == "enumerate" and not args:
        return [[i, item] for i, item in enumerate(items)]
    if name in ("map", "filter") and len(args) == 1:
        results = [_apply(args[0], item, st, frame, depth) for item in items]
        if any(r is _UNKNOWN for r in results):
            return None
        if name == "map":
            return results
        if not all(type(r) is bool for r in results):
            return None
        return [item for item, keep in zip(items, results, strict=True) if keep]
    if len(args) != 1:
        return None
    if name in ("zip", "chain"):
        other = _items(args[0], st, frame, depth + 1)
        if other is None:
            return None
        joined = (
            [list(p) for p in zip(items, other, strict=False)] if name == "zip" else items + other
        )
        return joined if len(joined) <= MAX_ITEMS else None
    count = st.value(args[0], frame, depth + 1)
    n = count.value if count is not None and type(count.value) is int else None
    if n is None or n < 0:
        return None
    if name == "skip":
        return items[n:]
    if name == "take":
        return items[:n]
    if n == 0:
        return None  # `step_by(0)`, `windows(0)`, `chunks(0)` panic
    if name == "step_by":
        return items[::n]
    if name == "windows":
        return [items[i : i + n] for i in range(len(items) - n + 1)]
    return [items[i : i + n] for i in range(0, len(items), n)]  # chunks


def _consumed(
    name: str, items: list[Any], args: list[Node], st: State, frame: Frame, depth: int
) -> Any:
    numbers = all(type(i) in (int, float) for i in items) and len({type(i) for i in items}) <= 1
    if not args:
        if name == "count":
            return len(items)
        if name == "sum" and numbers:
            return sum(items) if items else 0
        if name == "product" and numbers:
            return _product(items)
        if name in ("min", "max") and all(type(i) is int for i in items):
            return (min if name == "min" else max)(items) if items else None
        if name in ("first", "last"):
            return (items[0] if name == "first" else items[-1]) if items else None
        return _UNKNOWN
    if name == "fold" and len(args) == 2:  # `xs.iter().fold(0, |acc, w| acc + w)`
        start = st.value(args[0], frame, depth + 1)
        acc = _UNKNOWN if start is None else start.value
        for item in items:
            if acc is _UNKNOWN:
                break
            acc = _apply(args[1], item, st, frame, depth, acc)
        return acc
    if len(args) != 1:
        return _UNKNOWN
    if name == "contains":
        wanted = st.value(args[0], frame, depth + 1)
        return _UNKNOWN if wanted is None else wanted.value in items
    if name in ("any", "all", "position"):
        results = [_apply(args[0], item, st, frame, depth) for item in items]
        if any(type(r) is not bool for r in results):
            return _UNKNOWN
        if name == "position":
            return next((i for i, r in enumerate(results) if r), None)
        return any(results) if name == "any" else all(results)
    return _UNKNOWN


def _product(items: list[Any]) -> Any:
    total: Any = 1 if not items or type(items[0]) is int else 1.0
    for item in items:
        total *= item
    return total


def _apply(
    written: Node, item: Any, st: State, frame: Frame, depth: int, acc: Any = _UNKNOWN
) -> Any:
    """A closure's result for one item (`_UNKNOWN` when not known): its one parameter, a name
    or a reference pattern of one (`|&x|`), bound to the item; with `acc` (a `fold`'s), its
    two, the accumulator then the item."""
    closure = strip(written)
    if closure is None or closure.type != "closure_expression":
        return _UNKNOWN
    params = child_by_field(closure, "parameters")
    given = list(params.named_children) if params is not None else []
    values = [item] if acc is _UNKNOWN else [acc, item]
    names = [name for p in given if (name := _param_name(p, st)) is not None]
    body = child_by_field(closure, "body")
    if body is not None and body.type == "block":
        body = block_tail(body)
    if len(given) != len(values) or len(names) != len(values) or body is None:
        return _UNKNOWN
    bound: dict[str, Any] = {
        n: Value(v, span_of(closure), path=st.unit.path) for n, v in zip(names, values, strict=True)
    }
    key = [closure.id, id(frame), ("item", repr(values))]
    inner = calls._frame(st, key, frame, closure, bound, "|" + ", ".join(names) + "|", frame)
    found = st.value(body, inner, depth + 1)
    return _UNKNOWN if found is None else found.value


def _param_name(param: Node, st: State) -> str | None:
    """A closure parameter's name: `x`, `x: T`, `&x`, `&&x`; None for another pattern."""
    pattern: Node | None = param
    if pattern is not None and pattern.type == "parameter":
        pattern = child_by_field(pattern, "pattern")
    while pattern is not None and pattern.type == "reference_pattern":
        pattern = pattern.named_children[0] if pattern.named_children else None
    return st.unit.text(pattern) if pattern is not None and pattern.type == "identifier" else None

"""`for` loops over values known statically: a literal array (`for k in [2, 4, 8]`) or a small
constant range (`for i in 0..3`). A question about an expression in the loop's body is asked once
per element, each in a frame where the loop variable is that element ("for k = 4"); nested
loops give one frame per combination.

Bounded: a loop of more than `MAX_ELEMENTS` elements, or nests making more than `MAX_FRAMES`
combinations, is not unrolled (its variable stays unknown): a 10,000-iteration loop costs one
look at its bounds.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from panic_lens.evaluate.literals import strip
from panic_lens.evaluate.state import Frame, State, Value
from panic_lens.rust.syntax import Node, ancestors, child_by_field, span_of

MAX_ELEMENTS = 64
MAX_FRAMES = 256
_STOP = frozenset({"function_item", "closure_expression"})


def frames_at(node: Node, st: State, top: Frame) -> list[Frame]:
    """The frames an expression inside literal `for` loops (or a closure an iterator adapter
    runs over known elements: `[2, 4].into_iter().map(|k| ..)`) is evaluated in, outermost
    loop first; [] when it is in no such loop."""
    loops: list[tuple[Node, Node | None, str]] = []  # (loop, its variable's pattern, label)
    for outer in ancestors(node, st.unit.root):
        if outer.type == "closure_expression":
            mapped = _mapped_closure(outer, st)
            if mapped is not None:
                loops.append(mapped)
            break
        if outer.type in _STOP:
            break
        body = child_by_field(outer, "body") if outer.type == "for_expression" else None
        if body is not None and body.start_byte <= node.start_byte < body.end_byte:
            loops.append((outer, child_by_field(outer, "pattern"), "for"))
    if not loops:
        return []
    key = ("evaluate", "loop-frames", tuple(loop.id for loop, _, _ in loops), id(top))
    if key in st.memo:
        return st.memo[key]
    frames = [top]
    for loop, pattern, word in reversed(loops):
        names = _names_of(pattern, st)
        if names is None:
            continue
        shown = st.unit.text(pattern) if pattern is not None else ""
        grown = []
        for frame in frames:
            for item in _elements(_iterable(loop, st), st, frame) or ():
                args = _bound(names, item)
                if args is None:
                    continue
                value = _show(item.value)
                if len(names) > 1:  # a tuple's items, as the pattern writes them
                    value = "(" + ", ".join(_show(v) for v in item.value) + ")"
                label = f"{word} {shown} = {value}"
                grown.append(Frame(loop, args, frame.calls,
                                   f"{frame.label}, {label}" if frame.label else label,
                                   frame))  # fmt: skip
        if not grown or len(grown) > MAX_FRAMES:
            continue  # not unrolled: the variable stays unknown
        frames = grown
    found = [f for f in frames if f is not top]
    st.memo[key] = found
    return found


def _names_of(pattern: Node | None, st: State) -> list[str] | None:
    """The names a loop's pattern binds, in order: one (`k`), or a tuple's (`(start, len)`,
    `_` for a place it skips); None for another pattern."""
    if pattern is None:
        return None
    if pattern.type == "identifier":
        return [st.unit.text(pattern)]
    if pattern.type != "tuple_pattern":
        return None
    parts = [c for c in pattern.children if c.is_named or st.unit.text(c) == "_"]
    if not parts or any(c.type != "identifier" and st.unit.text(c) != "_" for c in parts):
        return None
    return [st.unit.text(c) for c in parts]


def _bound(names: list[str], item: Value) -> dict[str, Value] | None:
    """Each name's value for one element (a tuple's items by place); None when the element is
    not a tuple of that size."""
    if len(names) == 1:
        return {names[0]: item}
    if not isinstance(item.value, list) or len(item.value) != len(names):
        return None
    return {n: Value(v, item.origin, None, "", item.path)
            for n, v in zip(names, item.value, strict=True) if n != "_"}  # fmt: skip


# iterator adapters that call their closure once per element, with the element
_ADAPTERS = frozenset({"map", "for_each", "flat_map", "filter_map", "inspect"})


def _mapped_closure(closure: Node, st: State) -> tuple[Node, Node | None, str] | None:
    """(closure, its one parameter's pattern, "map with") when the closure is the argument of
    an adapter (`.map(|k| ..)`) on a receiver (`[..].into_iter()`, a range); else None."""
    call = _adapter_call(closure, st, _ADAPTERS) or _passed_to_adapter(closure, st)
    method = child_by_field(child_by_field(call, "function"), "field") if call else None
    if method is None:
        return None
    params = child_by_field(closure, "parameters")
    found = [p for p in (params.named_children if params is not None else ())]
    if len(found) != 1:
        return None
    pattern: Node | None = found[0]
    if pattern is not None and pattern.type == "parameter":
        pattern = child_by_field(pattern, "pattern")
    elif (
        pattern is not None and pattern.type == "reference_pattern" and pattern.named_children
    ):  # `|&k|` over `.iter()`
        pattern = pattern.named_children[0]
    return closure, pattern, f"{st.unit.text(method)} with"


def previous_map(param: Node, st: State) -> Node | None:
    """For the one parameter of a closure that `.map(..)` or `.for_each(..)` runs over the
    values another `.map(|x| body)` returns (`xs.iter().map(|x| f(x)).map(|t| ..)`), that
    `body`: what `t` is, in every run (evaluated with `x` unknown); else None."""
    params = param.parent
    if params is not None and params.type == "parameter":
        params = params.parent
    closure = params.parent if params is not None else None
    if (
        params is None
        or params.type != "closure_parameters"
        or len(params.named_children) != 1
        or closure is None
        or closure.type != "closure_expression"
    ):
        return None
    mapped = _adapter_call(closure, st, ("map", "for_each"))
    receiver = child_by_field(child_by_field(mapped, "function"), "value") if mapped else None
    if receiver is None or receiver.type != "call_expression":
        return None
    before = child_by_field(receiver, "arguments")
    inner = before.named_children if before is not None else []
    if len(inner) != 1 or inner[0].type != "closure_expression":
        return None
    if _adapter_call(inner[0], st, ("map",)) is None:
        return None
    return child_by_field(inner[0], "body")


def _adapter_call(closure: Node, st: State, names: Collection[str]) -> Node | None:
    """The call `recv.name(closure)` the closure is the one argument of, `name` in `names`."""
    args = closure.parent
    call = args.parent if args is not None and args.type == "arguments" else None
    function = child_by_field(call, "function") if call is not None else None
    method = child_by_field(function, "field") if function is not None else None
    if (
        args is None
        or function is None
        or function.type != "field_expression"
        or method is None
        or st.unit.text(method) not in names
        or len(args.named_children) != 1
    ):
        return None
    return call


def _passed_to_adapter(closure: Node, st: State) -> Node | None:
    """The adapter call (`.map(make)`) a closure bound by `let make = |p| ..;` is passed to by
    name, when that is the name's one use in its block after the `let` (another use, a
    shadowing `let` included, leaves it alone)."""
    binding = closure.parent
    pattern = child_by_field(binding, "pattern") if binding is not None else None
    block = binding.parent if binding is not None else None
    if binding is None or binding.type != "let_declaration" or block is None:
        return None
    if pattern is None or pattern.type != "identifier":
        return None
    word = re.escape(st.unit.src[pattern.start_byte : pattern.end_byte])
    after = st.unit.src[binding.end_byte : block.end_byte]
    uses = [m.start() for m in re.finditer(rb"(?<![\w.])" + word + rb"(?!\w)", after)]
    if len(uses) != 1:
        return None
    at = binding.end_byte + uses[0]
    name = block.descendant_for_byte_range(at, at + pattern.end_byte - pattern.start_byte)
    if name is None or name.type != "identifier":
        return None
    return _adapter_call(name, st, _ADAPTERS)


def _iterable(loop: Node, st: State) -> Node | None:
    """What a loop runs over: a `for`'s value, an adapter's receiver."""
    if loop.type == "for_expression":
        return child_by_field(loop, "value")
    call = _adapter_call(loop, st, _ADAPTERS) or _passed_to_adapter(loop, st)
    function = child_by_field(call, "function") if call is not None else None
    return child_by_field(function, "value") if function is not None else None


def _elements(value: Node | None, st: State, frame: Frame) -> list[Value] | None:
    """The values a loop's variable takes, when what it runs over is known and small."""
    value = strip(value)
    if value is None:
        return None
    if value.type == "range_expression":
        return _range(value, st, frame)
    if value.type == "call_expression":  # `[..].iter()`, `xs.into_iter()`
        function = child_by_field(value, "function")
        method = child_by_field(function, "field") if function is not None else None
        args = child_by_field(value, "arguments")
        if (
            method is None
            or st.unit.text(method) not in ("iter", "into_iter")
            or (args is not None and args.named_children)
        ):
            return None
        value = strip(child_by_field(function, "value"))
        if value is None:
            return None
    found = st.value(value, frame, 1)
    if found is None or not isinstance(found.value, list) or len(found.value) > MAX_ELEMENTS:
        return None
    where = span_of(value)
    return [Value(v, where, None, "", st.unit.path) for v in found.value]


def _range(node: Node, st: State, frame: Frame) -> list[Value] | None:
    op = next((c for c in node.children if c.type in ("..", "..=")), None)
    ends = node.named_children
    if op is None or len(ends) != 2:
        return None
    low, high = (st.value(e, frame, 1) for e in ends)
    if low is None or high is None or type(low.value) is not int or type(high.value) is not int:
        return None
    stop = high.value + (1 if op.type == "..=" else 0)
    if stop - low.value > MAX_ELEMENTS:
        return None
    where = span_of(node)
    return [Value(i, where, None, "", st.unit.path) for i in range(low.value, stop)]


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)

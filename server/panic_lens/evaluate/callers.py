"""A function's parameters as its callers in the same file give them: a call inside a helper
(`fn norm(groups: usize, ..) { GroupNormConfig::new(groups, 40).init(..) }`) is asked about
once per call of the helper whose arguments are known (`norm(3, ..)`), each in the frame
`calls.frame_for` makes for that call ("when called as norm(3, ..) at line 12").

Only for an expression that names a parameter of its function (a value the parameter reaches
through a `let` is not followed back). One level: the callers' own parameters stay unknown.
Bounded: at most `MAX_CALLERS` calls of one function are followed; a call inside the function
itself (recursion) is not one of them.
"""

from __future__ import annotations

import re

from panic_lens.evaluate import scope
from panic_lens.evaluate.calls import callee_fn, frame_for
from panic_lens.evaluate.literals import at
from panic_lens.evaluate.state import Frame, State
from panic_lens.rust.syntax import Node, ancestors, child_by_field

MAX_CALLERS = 8


def frames_at(node: Node, st: State, top: Frame) -> list[Frame]:
    """The frames of the calls in the file of the function around `node` that give one of
    its parameters a known value; [] when there is none."""
    fn = next((a for a in ancestors(node, st.unit.root) if a.type == "function_item"), None)
    params = child_by_field(fn, "parameters") if fn is not None else None
    name = child_by_field(fn, "name") if fn is not None else None
    if params is None or name is None:
        return []
    named = frozenset(_param_names(params, st) & set(_WORD.findall(st.unit.text(node))))
    if not named:
        return []  # the expression names no parameter: its callers change nothing in it
    key = ("evaluate", "caller-frames", fn.id, named)
    if key in st.memo:
        return st.memo[key]
    found: list[Frame] = []
    item = scope.Item(st.unit, fn)
    method = any(p.type == "self_parameter" for p in params.named_children)
    for call in _calls_named(st, st.unit.text(name)):
        if fn.start_byte <= call.start_byte < fn.end_byte:
            continue  # recursion
        if not _may_call(call, method, st):
            continue
        callee = callee_fn(call, st)
        if callee is None or callee.node.id != fn.id:
            continue
        inner = frame_for(call, item, st, top, 0, named)
        if inner is None or not inner.args:
            continue
        label = f"when called as {_shown(call, st)} at {at(call)}"
        found.append(Frame(inner.fn, inner.args, inner.calls, label, call=call))
        if len(found) >= MAX_CALLERS:
            break
    st.memo[key] = found
    return found


_WORD = re.compile(r"[A-Za-z_]\w*")


def _param_names(params: Node, st: State) -> set[str]:
    out = set()
    for param in params.named_children:
        pattern = child_by_field(param, "pattern") if param.type == "parameter" else None
        if pattern is not None and pattern.type == "identifier":
            out.add(st.unit.text(pattern))
    return out


def _may_call(call: Node, method: bool, st: State) -> bool:
    """Whether `call` is written as `callee_fn` may find the function: a method (one with
    `self`) as `self.f(..)` or by path, a free function by path; a method call on another
    receiver is another type's method."""
    function = child_by_field(call, "function")
    if function is None:
        return False
    if function.type == "field_expression":
        receiver = child_by_field(function, "value")
        return method and receiver is not None and receiver.type == "self"
    return True


def _calls_named(st: State, name: str) -> list[Node]:
    """The file's calls written with `name` (`name(..)`, `x.name(..)`, `T::name(..)`), as the
    analysed file's facts find them (by the name's bytes first); [] in another file."""
    facts = st.facts()
    if facts is None or facts.src is not st.unit.src:
        return []
    return [site.node for site in facts.calls(frozenset({name}))]


def _shown(call: Node, st: State) -> str:
    text = " ".join(st.unit.text(call).split())
    return text if len(text) <= 60 else text[:57] + "..."

"""Values that depend on where execution goes: a function's parameters in a call being
followed (`evaluate.calls`), a `for` loop's element while its body is evaluated per element
(`evaluate.loops`), blocks (their tail expression), `if`s and `match`es (the branch a known
condition takes, or the value every branch agrees on), and fields of tuples.
"""

from __future__ import annotations

import re
from typing import Any

from panic_lens.evaluate import calls, fields
from panic_lens.evaluate.literals import at, block_tail
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import MAX_DEPTH, Fields, Frame, State, Value
from panic_lens.rust.locals import LocalBinding
from panic_lens.rust.syntax import Node, ancestors, call_parts, child_by_field, span_of


def bound_elsewhere(
    ident: Node, found: LocalBinding, st: State, frame: Frame, depth: int
) -> Value | None:
    """A parameter or a loop variable: its value in `frame`, when the frame gives one for
    this very binding (a parameter of the function being followed, a loop's element)."""
    here: Frame | None = frame
    while here is not None:
        given = here.args.get(found.name)
        owner = here.fn
        inside = owner is not None and owner.start_byte <= found.decl.start_byte < owner.end_byte
        loop_var = owner is not None and owner.type == "for_expression"
        its_own = found.kind != "pattern" or (loop_var and found.decl.parent == owner)
        if given is not None and inside and its_own:
            return given if isinstance(given, Value) else None
        here = here.parent
    return None


def const_generic(ident: Node, st: State, frame: Frame) -> Value | bool | None:
    """A const generic parameter of the function around `ident` (`K` in `fn top_k<const K:
    usize>(..)`): its value in `frame` when the frame is of a call of that function whose
    turbofish gives it (`top_k::<5>(x)`), else None; False when `ident` names no such
    parameter (then it is a const of the crate, or nothing)."""
    name = st.unit.text(ident)
    if name not in _const_generic_names(st):
        return False  # (most names: the file declares no const generic of that name)
    key = ("evaluate", "const-generic-of", ident.id)
    if key not in st.memo:
        st.memo[key] = next(
            (fn for fn in ancestors(ident, st.unit.root)
             if fn.type == "function_item" and name in calls.const_generics(fn, st.unit)),
            None,
        )  # fmt: skip
    owner: Node | None = st.memo[key]
    if owner is None:
        return False
    here: Frame | None = frame
    while here is not None:
        given = here.args.get(name)
        if here.fn is not None and here.fn.id == owner.id:
            return given if isinstance(given, Value) else None
        here = here.parent
    return None


def _const_generic_names(st: State) -> frozenset[str]:
    """The names the file may declare const generics of (`const K: usize>`, `const N: usize,`:
    a superset, by its bytes), once per file."""
    key = ("evaluate", "const-generic-names")
    found: frozenset[str] | None = st.memo.get(key)
    if found is None:
        words = _CONST_GENERIC.findall(st.unit.src)
        found = st.memo[key] = frozenset(w.decode() for w in words)
    return found


_CONST_GENERIC = re.compile(rb"\bconst\s+([A-Za-z_]\w*)\s*:\s*[\w:]+\s*[,>]")


def value_of_expression(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    if node.type == "block":
        tail = block_tail(node)
        return st.value(tail, frame, depth + 1) if tail is not None else None
    if node.type == "if_expression":
        return _if(node, st, frame, depth)
    if node.type == "match_expression":
        return _match(node, st, frame, depth)
    if node.type == "field_expression":
        base = child_by_field(node, "value")
        field = child_by_field(node, "field")
        if field is not None and field.type == "field_identifier":
            init = literal_field(base, st.unit.text(field), st)
            if init is not None:
                return st.value(init, frame, depth + 1)
            return struct_field(node, base, st.unit.text(field), st, frame, depth)
        if field is None or field.type != "integer_literal":
            return None
        at = int(st.unit.text(field))
        init = tuple_struct_field(base, at, st)  # `w.0` of `let w = Width(11)`
        if init is not None:
            return st.value(init, frame, depth + 1)
        inner = st.value(base, frame, depth + 1)
        if inner is None or not isinstance(inner.value, list) or at >= len(inner.value):
            return None
        return Value(inner.value[at], span_of(node), None, inner.note, inner.path)
    return None


def struct_field(
    node: Node, base: Node | None, name: str, st: State, frame: Frame, depth: int
) -> Value | None:
    """`cfg.groups` of a value that is a struct of the crate (`Fields`: a config built by
    `X::new(..)` and its setters, `self` in a method called on one): the field's value where
    it was set; None when the field is not known."""
    inner = st.value(base, frame, depth + 1) if base is not None else None
    if inner is None or not isinstance(inner.value, Fields):
        return None
    found = inner.value.sources.get(name)
    if found is None:
        return None
    read = st.unit.text(node)
    return Value(found.value, found.origin, None, found.note or read, found.path, found.shape,
                 (*found.steps, f"{read} at {at(node)}"))  # fmt: skip


def self_value(node: Node, st: State, frame: Frame) -> Value | None:
    """`self` in a method whose caller is being followed (`evaluate.callers`, `calls`): the
    value the call's receiver has, when the frame gives one for this very method."""
    here: Frame | None = frame
    while here is not None and "self" not in here.args:
        here = here.parent
    if here is None:
        return None  # no call of a method is being followed
    fn = next((a for a in ancestors(node, st.unit.root) if a.type == "function_item"), None)
    while fn is not None and here is not None:
        given = here.args.get("self")
        if given is not None and here.fn is not None and here.fn.id == fn.id:
            return given if isinstance(given, Value) else None
        here = here.parent
    return None


def tuple_struct_field(base: Node | None, at: int, st: State) -> Node | None:
    """The argument a tuple struct's constructor gives its field `at`, when `base` is that
    call (`Width(11)`) or a local bound to it that nothing changed since; None otherwise (a
    function's call is no constructor: its callee must name a struct of the crate)."""
    unit = st.unit
    for _ in range(_MAX_HOPS):
        if base is None or base.type != "identifier":
            break
        found = st.binding(base)
        base = bound_value(base, found, unit.src, unit.root) if found is not None else None
    if base is None or base.type != "call_expression":
        return None
    callee, args = call_parts(base)
    item = st.item_at(callee) if callee is not None else None
    if item is None or item.node.type != "struct_item" or at >= len(args):
        return None
    return args[at]


def literal_field(base: Node | None, name: str, st: State) -> Node | None:
    """The expression a struct literal gives the field `name`, when `base` is that literal or a
    local bound to it that nothing changed since (`let d = Dims { groups: 5, .. }; d.groups`),
    through `..rest` for a field the literal does not set; None otherwise."""
    unit = st.unit
    for _ in range(_MAX_HOPS):
        while base is not None and base.type == "parenthesized_expression":
            base = base.named_children[0] if base.named_children else None
        if base is not None and base.type == "identifier":
            binding = st.binding(base)
            base = bound_value(base, binding, unit.src, unit.root) if binding is not None else None
            continue
        if base is not None and base.type == "call_expression":
            base = _constructed(base, st)  # `Dims::default()`, `Dims::new()`
            continue
        if base is None or base.type != "struct_expression":
            return None
        value, rest = fields.initializer(base, name, unit)
        if value is not None:
            return value
        base = rest
    return None


_MAX_HOPS = 8  # locals, constructors and `..rest` followed to find one field's literal


def _constructed(call: Node, st: State) -> Node | None:
    """The struct literal a function of this file returns when `call` calls it and that is its
    one exit (`impl Default for Dims { fn default() -> Self { Self { groups: 5, .. } } }`);
    None otherwise. Its fields are read where it is written: those set from the function's
    parameters are unknown."""
    fn = calls.callee_fn(call, st)
    body = child_by_field(fn.node, "body") if fn is not None and fn.unit is st.unit else None
    exits = calls.body_exits(body, st.unit.src) if body is not None else []
    return exits[0] if len(exits) == 1 and exits[0].type == "struct_expression" else None


def if_branches(node: Node, st: State, frame: Frame, depth: int) -> list[Node] | None:
    """The branches an `if .. else ..` (no `if let`) may take: the one its condition picks
    when that is known, else both; None for another `if`."""
    cond = child_by_field(node, "condition")
    then = child_by_field(node, "consequence")
    other = child_by_field(node, "alternative")
    other_body = other.named_children[0] if other is not None and other.named_children else None
    if cond is None or then is None or other_body is None or cond.type == "let_condition":
        return None
    known = st.value(cond, frame, depth + 1)
    if known is not None and type(known.value) is bool:
        return [then if known.value else other_body]
    return [then, other_body]


def _if(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    ways = if_branches(node, st, frame, depth)
    if ways is None:
        return None
    if len(ways) == 1:
        return st.value(ways[0], frame, depth + 1)
    then, other_body = ways
    a = st.value(then, frame, depth + 1)
    b = st.value(other_body, frame, depth + 1) if a is not None else None
    if a is None or b is None or not _same(a.value, b.value):
        return None
    return Value(a.value, span_of(node), None, a.note, a.path)  # every branch agrees


def match_arms(node: Node, st: State, frame: Frame, depth: int) -> list[Node] | None:
    """The values of the arms a `match` may take: the first arm whose pattern the known
    scrutinee matches (`match size { ModelSize::Mini => 6, .. }`: a variant by its name, a
    literal, `_`, `A | B`), else every arm; None when an arm that may be the one binds a name
    or has a guard (what it gives is not followed)."""
    scrutinee = child_by_field(node, "value")
    block = child_by_field(node, "body")
    arms = [a for a in block.named_children if a.type == "match_arm"] if block else []
    known = st.value(scrutinee, frame, depth + 1) if scrutinee is not None else None
    out: list[Node] = []
    for arm in arms:
        pattern, value = child_by_field(arm, "pattern"), child_by_field(arm, "value")
        if pattern is None or value is None or child_by_field(pattern, "condition"):
            return None
        fits = _fits(pattern, known, st) if known is not None else None
        if fits is False:
            continue
        if fits is None and known is not None:
            return None  # a pattern not read: which arm is taken is not known
        out.append(value)
        if fits:
            return out[-1:]
    return out or None


def _fits(pattern: Node, known: Value, st: State) -> bool | None:
    """Whether a value matches a match arm's pattern: `_`, a literal, a variant (by name),
    `A | B`; None for a pattern that binds or one not read."""
    items = [c for c in pattern.children if c.is_named or c.type == "_"]
    if len(items) != 1:
        return None
    item = items[0]
    if item.type == "_":
        return True
    if item.type == "or_pattern":
        found = [_fits_one(c, known, st) for c in item.named_children]
        return True if True in found else (False if all(f is False for f in found) else None)
    return _fits_one(item, known, st)


def _fits_one(item: Node, known: Value, st: State) -> bool | None:
    text = st.unit.text(item).replace(" ", "")
    if item.type == "identifier" and text == "None":
        return known.value is None
    variant = item.type == "scoped_identifier" or (
        item.type == "identifier" and text[:1].isupper() and not text.isupper()
    )  # (a name in capitals is a const's, compared by its value: not read)
    if variant:
        return type(known.value) is str and known.value == text.rsplit("::", 1)[-1]
    if item.type in ("integer_literal", "boolean_literal", "string_literal", "char_literal",
                     "negative_literal"):  # fmt: skip
        written = st.value(item, _NO_CALL, 0)  # a literal: the same in every frame
        return None if written is None else _same(written.value, known.value)
    return None


_NO_CALL = Frame()


def _match(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    ways = match_arms(node, st, frame, depth)
    if not ways:
        return None
    values = [st.value(w, frame, depth + 1) for w in ways]
    first = values[0]
    if first is None or any(v is None or not _same(v.value, first.value) for v in values[1:]):
        return None
    if len(ways) == 1:
        return first
    return Value(first.value, span_of(node), None, first.note, first.path)  # every arm agrees


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


_EXITS = frozenset({"return_expression", "break_expression", "continue_expression"})


def never_reached(node: Node, st: State, frame: Frame) -> bool:
    """Whether every execution leaves before `node`: a statement before it, in a block around
    it (in its function), always returns (`return ..;`, or an `if` whose condition is known
    true and whose block ends in a `return`, `break`, `continue` or `panic!`)."""
    from panic_lens.rust.syntax import ancestors

    child = node
    for block in ancestors(node, st.unit.root):
        if block.type in ("function_item", "closure_expression"):
            return False
        if block.type == "block":
            for stmt in block.named_children:
                if stmt.start_byte >= child.start_byte:
                    break
                if _always_leaves(stmt, st, frame):
                    return True
        child = block
    return False


def _always_leaves(stmt: Node, st: State, frame: Frame) -> bool:
    expr = (
        stmt.named_children[0]
        if stmt.type == "expression_statement" and stmt.named_children
        else stmt
    )
    if expr.type in _EXITS:
        return True
    if expr.type != "if_expression" or child_by_field(expr, "alternative") is not None:
        return False
    cond = child_by_field(expr, "condition")
    body = child_by_field(expr, "consequence")
    if cond is None or body is None or cond.type == "let_condition":
        return False
    known = st.value(cond, frame, 1)
    if known is None or known.value is not True:
        return False
    last = [c for c in body.named_children if "comment" not in c.type]
    tail = last[-1] if last else None
    if tail is not None and tail.type == "expression_statement" and tail.named_children:
        tail = tail.named_children[0]
    if tail is None:
        return False
    if tail.type in _EXITS:
        return True
    return tail.type == "macro_invocation" and st.unit.text(tail).startswith(
        ("panic!", "unreachable!", "todo!", "unimplemented!")
    )


def tuple_part(
    ident: Node, found: LocalBinding, st: State
) -> tuple[Node, tuple[int | str, ...]] | None:
    """`let (a, (b, c)) = value;` (no `else`): the value and the indexes that lead to the name
    `found` binds in its tuple pattern, when nothing since may have changed a `mut` one
    (`locals.bound_value`) where `ident` reads it; None for any other binding or pattern (a
    `..` in the tuple leaves the places unknown)."""
    pattern, let = found.decl, found.decl.parent
    kinds = ("tuple_pattern", "struct_pattern")
    if found.kind != "pattern" or pattern.type not in kinds or let is None:
        return None
    if let.type != "let_declaration" or child_by_field(let, "alternative") is not None:
        return None
    value = child_by_field(let, "value")
    place = _place(pattern, found.name, st)
    if value is None or place is None:
        return None
    element = LocalBinding(found.name, "let", place[1], None, value)  # `mut c`: may change
    if bound_value(ident, element, st.unit.src, st.unit.root) is None:
        return None
    return value, place[0]


def _place(pattern: Node, name: str, st: State) -> tuple[tuple[int | str, ...], Node] | None:
    """The indexes of `name` in a tuple pattern (a field's name in a struct pattern, `let Dims
    { d_model, heads: h, .. } = ..`), and the element that binds it."""
    if pattern.type == "struct_pattern":
        for item in pattern.named_children:
            if item.type != "field_pattern":
                continue
            field, bound = child_by_field(item, "name"), child_by_field(item, "pattern")
            if field is None:
                continue
            if bound is None and st.unit.text(field) == name:
                return (name,), item  # `d_model` (shorthand)
            if bound is not None and _names(bound, name, st):
                return (st.unit.text(field),), item
        return None
    # the elements in order, `_` (an unnamed node) among them
    items = [
        c for c in pattern.children if (c.is_named and "comment" not in c.type) or c.type == "_"
    ]
    if any(c.type == "remaining_field_pattern" for c in items):
        return None
    for at_, item in enumerate(items):
        if _names(item, name, st):
            return (at_,), item
        if item.type == "tuple_pattern" and (deeper := _place(item, name, st)) is not None:
            return (at_, *deeper[0]), deeper[1]
    return None


def _names(pattern: Node, name: str, st: State) -> bool:
    """Whether a pattern element is the name itself (`a`, or `mut a`: the name is last)."""
    if pattern.type == "mut_pattern" and pattern.named_children:
        pattern = pattern.named_children[-1]
    return pattern.type == "identifier" and st.unit.text(pattern) == name


def tuple_element(
    expr: Node | None, path: tuple[int | str, ...], st: State, frame: Frame, depth: int,
    what: Any,
) -> Any:  # fmt: skip
    """`what` (`State.value` or `State.shape`) of the element at `path` of the tuple `expr`
    gives: an element written in a tuple literal, or of the tuples every exit of a crate
    function returns (`let (raw, fine) = model.forward(x)`); None when not known."""
    while expr is not None and expr.type == "parenthesized_expression" and expr.named_children:
        expr = expr.named_children[0]
    if expr is None or depth > MAX_DEPTH:
        return None
    if not path:
        return what(st, expr, frame, depth + 1)
    if isinstance(path[0], str):  # a struct's field: of the value the expression has
        whole = st.value(expr, frame, depth + 1) if what is State.value and len(path) == 1 else None
        fields_ = whole.value if whole is not None else None
        return fields_.sources.get(path[0]) if isinstance(fields_, Fields) else None
    if expr.type == "tuple_expression":
        items = [c for c in expr.named_children if "comment" not in c.type]
        if path[0] >= len(items):
            return None
        return tuple_element(items[path[0]], path[1:], st, frame, depth + 1, what)
    if expr.type in ("match_expression", "if_expression"):  # the arm taken, or all agreeing
        ways = (match_arms if expr.type == "match_expression" else if_branches)(
            expr, st, frame, depth
        )
        found = [tuple_element(w, path, st, frame, depth + 1, what) for w in ways or ()]
        if not found or any(f is None or calls.result_key(f) != calls.result_key(found[0])
                            for f in found[1:]):  # fmt: skip
            return None
        return found[0]
    if expr.type == "block":
        tail = block_tail(expr)
        return tuple_element(tail, path, st, frame, depth + 1, what) if tail else None
    if expr.type != "call_expression":
        return None
    fn = calls.callee_fn(expr, st)
    inner = calls.frame_for(expr, fn, st, frame, depth) if fn is not None else None
    if fn is None or inner is None:
        return None

    def element(owner: State, exit_: Node, at_frame: Frame, at_depth: int) -> Any:
        return tuple_element(exit_, path, owner, at_frame, at_depth, what)

    found = calls.returned(fn, st, inner, depth, element)
    if found is None:
        return None
    step = f"returned by {inner.label} at {at(expr)}, element {'.'.join(map(str, path))}"
    if isinstance(found, Value):
        return Value(found.value, found.origin, None, found.note, found.path, found.shape,
                     (*found.steps, step))  # fmt: skip
    return found.then(step)

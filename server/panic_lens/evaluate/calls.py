"""Calls of the crate's own functions: a function (a free `fn`, a block-level `fn`, an
associated `Self::f`/`Type::f`, or a method `self.f(..)`) called with arguments whose values are
known is evaluated with those values, and its result flows back when every `return` and its
tail expression agree.

Bounded: at most `MAX_CALL_DEPTH` calls deep; a function already on the way (recursion, mutual
recursion) is unknown; each (function, argument values) is evaluated once per file.
"""

from __future__ import annotations

from typing import Any

from panic_lens.evaluate import fields, ops, scope
from panic_lens.evaluate.literals import at, block_tail
from panic_lens.evaluate.state import Fields, Frame, State, Value, state_for
from panic_lens.rust.syntax import Node, call_parts, child_by_field, method_call, span_of

MAX_CALL_DEPTH = 4


def callee_fn(call: Node, st: State) -> scope.Item | None:
    """The crate function a call expression calls, when its name resolves to one (looked up
    once per call: a call is evaluated in every frame it is asked about in)."""
    key = ("evaluate", "callee", call.id)
    if key not in st.memo:
        st.memo[key] = _callee_fn(call, st)
    found: scope.Item | None = st.memo[key]
    return found


def _callee_fn(call: Node, st: State) -> scope.Item | None:
    unit = st.unit
    parts = method_call(call)
    if parts is not None:
        receiver, method, _ = parts
        if receiver.type != "self":  # `model.forward(x)` with `model: &Model<B>`
            called = unit.text(method)
            owner_item = (
                fields.declared_struct(receiver, st)
                or _variant_enum(receiver, st)
                or _unit_struct(receiver, st)
            )
            if owner_item is None and called not in ops.table().method:  # (`x.reshape(..)`:
                owner_item = _built_struct(receiver, st, 0)  # a tensor's, no type to find)
            return _method_of(owner_item, called, st) if owner_item else None
        impl = scope._enclosing_impl(call, unit)
        owner = child_by_field(impl, "type") if impl is not None else None
        return _method(unit, owner, unit.text(method))
    callee, _ = call_parts(call)
    if callee is not None and callee.type == "generic_function":
        callee = child_by_field(callee, "function")
    if callee is None or callee.type not in ("identifier", "scoped_identifier"):
        return None
    text = unit.text(callee).replace(" ", "")
    if text.startswith("Self::") and text.count("::") == 1:
        impl = scope._enclosing_impl(call, unit)
        owner = child_by_field(impl, "type") if impl is not None else None
        return _method(unit, owner, text.split("::", 1)[1])
    item = st.item_at(callee)
    if item is not None and item.node.type == "function_item":
        return item
    if callee.type == "scoped_identifier":  # `Type::f(..)`: an associated function
        path = child_by_field(callee, "path")
        name = child_by_field(callee, "name")
        owner_item = st.item_at(path) if path is not None else None
        if owner_item is not None and name is not None and owner_item.node.type == "struct_item":
            type_name = child_by_field(owner_item.node, "name")
            return _method(owner_item.unit, type_name, unit.text(name))
        if owner_item is None and path is not None and name is not None:
            # a type of another crate (burn's `CrossEntropyLossConfig::from(&spec)`): the one
            # function of that name in this file's impls of a trait for it (`impl From<&Spec>
            # for CrossEntropyLossConfig`); Rust allows no inherent impl of a foreign type
            return _method(unit, path, unit.text(name), traits_only=True)
    return None


def _unit_struct(receiver: Node, st: State) -> scope.Item | None:
    """The unit struct of the crate a receiver names as a value (`Decoder` of
    `Decoder.width()`, `struct Decoder;`)."""
    if receiver.type != "identifier" or st.binding(receiver) is not None:
        return None
    item = st.item_at(receiver)
    if item is None or item.node.type != "struct_item" or child_by_field(item.node, "body"):
        return None
    return item


def _variant_enum(receiver: Node, st: State) -> scope.Item | None:
    """The enum of the crate a variant path names (`LabelSet::Voc` of `LabelSet::Voc.f()`)."""
    if receiver.type != "scoped_identifier":
        return None
    path = child_by_field(receiver, "path")
    owner = st.item_at(path) if path is not None else None
    return owner if owner is not None and owner.node.type == "enum_item" else None


_MAX_BUILT = 8  # lets and calls followed to find what builds a value


def _built_struct(expr: Node | None, st: State, depth: int) -> scope.Item | None:
    """The struct of the crate an expression is a value of, by what builds it when no type is
    written: a literal, `X::new(..)` of a derived config, a crate function or method by the
    type it declares it returns (`VaeConfig::new(20).init(d)` is a `Vae`), a config's setters
    and `clone`, through `let`s that are not `mut`."""
    while expr is not None and expr.type in ("parenthesized_expression", "reference_expression"):
        expr = expr.named_children[-1] if expr.named_children else None
    if expr is None or depth > _MAX_BUILT:
        return None
    unit = st.unit
    if expr.type == "identifier":
        binding = st.binding(expr)
        if binding is None or binding.kind != "let" or binding.value is None:
            return None
        return fields.declared_struct(expr, st) or _built_struct(binding.value, st, depth + 1)
    if expr.type == "struct_expression":
        written = child_by_field(expr, "name")
        kind = fields._self_type(written, unit) if written is not None else None
        return fields.struct_named(kind, unit, st) if kind is not None else None
    if expr.type != "call_expression":
        return None
    fn = callee_fn(expr, st)
    if fn is not None:
        kind = child_by_field(fn.node, "return_type")
        return fields.struct_named(fields._self_type(kind, fn.unit), fn.unit, st) if kind else None
    parts = method_call(expr)
    if parts is not None:
        method = unit.text(parts[1])
        if method == "clone" or method.startswith("with_"):  # a config's setter: the config
            return _built_struct(parts[0], st, depth + 1)
        return None
    callee = call_parts(expr)[0]
    path = child_by_field(callee, "path") if callee is not None else None
    name_node = child_by_field(callee, "name") if callee is not None else None
    if path is None or name_node is None or unit.text(name_node) != "new":
        return None
    owner = st.item_at(path)  # `X::new(..)` that the source does not write: a derived config's
    if (
        owner is None
        or owner.node.type != "struct_item"
        or not fields.is_config(owner.node, owner.unit)
    ):
        return None
    return owner


def _method_of(owner: scope.Item, name: str, st: State) -> scope.Item | None:
    """The method `name` of the crate's struct or enum `owner`: the one function of that name
    in the impls of its file (inherent or of a trait); None when there is none or several.
    Looked up once per type and name."""
    key = ("evaluate", "method-of", id(owner.unit), owner.node.id, name)
    if key not in st.memo:
        st.memo[key] = _method(owner.unit, child_by_field(owner.node, "name"), name)
    found: scope.Item | None = st.memo[key]
    params = child_by_field(found.node, "parameters") if found is not None else None
    if params is None or not any(p.type == "self_parameter" for p in params.named_children):
        return None  # an associated function without `self` is not called on a value
    return found


def _method(
    unit: scope.Unit, type_node: Node | None, name: str, traits_only: bool = False
) -> scope.Item | None:
    type_name = scope._base_name(type_node, unit) if type_node is not None else None
    if type_name is None:
        return None
    found = []
    for impl in scope._impls(unit):
        if scope._base_name(child_by_field(impl, "type"), unit) != type_name:
            continue
        if traits_only and child_by_field(impl, "trait") is None:
            continue
        body = child_by_field(impl, "body")
        for child in body.named_children if body is not None else ():
            ident = child_by_field(child, "name") if child.type == "function_item" else None
            if ident is not None and unit.text(ident) == name:
                found.append(scope.Item(unit, child))
    return found[0] if len(found) == 1 else None


def frame_for(
    call: Node, fn: scope.Item, st: State, frame: Frame, depth: int,
    only: frozenset[str] | None = None,
) -> Frame | None:  # fmt: skip
    """The frame `fn` runs in at `call`: its parameters' values where they are known (of the
    parameters `only` names, when given); None when the call may not be followed (too deep,
    recursive)."""
    if fn.node.id in frame.calls or len(frame.calls) >= MAX_CALL_DEPTH:
        return None
    params = child_by_field(fn.node, "parameters")
    names = [p for p in (params.named_children if params is not None else ())
             if p.type == "parameter"]  # fmt: skip
    args = call_parts(call)[1]
    parts = method_call(call)
    if parts is not None:
        args = parts[2]
    elif (
        names
        and params is not None
        and any(c.type == "self_parameter" for c in params.named_children)
    ):
        args = args[1:]  # `Self::f(self_value, ..)`
    given: dict[str, Any] = {}
    key: list[Any] = [fn.node.id]
    if parts is not None and (only is None or "self" in only):
        receiver = receiver_value(parts[0], fn, st, frame, depth)
        if receiver is not None:  # `cfg.init(d)`: `self` is `cfg`'s value
            given["self"] = receiver
            key.append(("self", repr(receiver.value)))
    for param, arg in zip(names, args, strict=False):
        pattern = child_by_field(param, "pattern")
        if pattern is None or pattern.type != "identifier":
            continue
        name = fn.unit.text(pattern)
        if only is not None and name not in only:
            continue
        found = _argument(arg, st, frame, depth)
        if found is not None:
            given[name] = found
            key.append(_keyed(name, found))
    for name, arg in const_arguments(call, fn):
        if only is not None and name not in only:
            continue
        found = st.value(arg, frame, depth + 1)
        if found is not None:
            given[name] = found
            key.append(_keyed(name, found))
    label = f"{fn.unit.text(child_by_field(fn.node, 'name') or fn.node)}(..)"
    return _frame(st, key, frame, fn.node, given, label, None)


def const_generics(fn: Node, unit: scope.Unit) -> list[str | None]:
    """The names of a function's type and const generic parameters in order (`fn f<B:
    Backend, const K: usize>`: [None, "K"]; a type parameter is None, a lifetime is left
    out, as a turbofish leaves it out)."""
    generics = child_by_field(fn, "type_parameters")
    out: list[str | None] = []
    for param in generics.named_children if generics is not None else ():
        if param.type == "const_parameter":
            name = child_by_field(param, "name")
            out.append(unit.text(name) if name is not None else None)
        elif param.type == "type_parameter":
            out.append(None)
    return out


def const_arguments(call: Node, fn: scope.Item) -> list[tuple[str, Node]]:
    """(name, argument) of each const generic parameter of `fn` that the call's turbofish
    gives (`top_k::<5>(x)` of `fn top_k<const K: usize>(..)`: K is 5), when the turbofish
    lists every type and const parameter, in order; [] for a call without one."""
    callee = child_by_field(call, "function")
    if callee is None or callee.type != "generic_function":
        return []
    written = child_by_field(callee, "type_arguments")
    args = [a for a in written.named_children if "comment" not in a.type] if written else []
    names = const_generics(fn.node, fn.unit)
    if not args or len(args) != len(names):
        return []
    return [(name, arg) for name, arg in zip(names, args, strict=True) if name is not None]


def _argument(arg: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """An argument's value, or its shape (as a value of no value) when only that is known."""
    found = st.value(arg, frame, depth + 1)
    if found is None:
        shape = st.shape(arg, frame, depth + 1)
        if shape is not None and shape.dims is not None:
            found = Value(None, span_of(arg), arg, shape=shape)
    return found


def _keyed(name: str, found: Value) -> tuple[str, str, str]:
    return name, repr(found.value), repr(getattr(found.shape, "dims", None))


def _frame(
    st: State, key: list[Any], frame: Frame, fn: Node, given: dict[str, Any], label: str,
    parent: Frame | None,
) -> Frame:  # fmt: skip
    """The frame `fn` (a function or a closure) runs in at a call in `frame` with `given`,
    one per call context and values (memoised: the same call asked again is the same
    frame, whose answers are memoised by it)."""
    frames = st.memo.setdefault(("evaluate", "frames"), {})
    memo_key = (tuple(key), frame.calls)
    if memo_key not in frames:
        frames[memo_key] = Frame(fn, given, (*frame.calls, fn.id), label, parent)
    found: Frame = frames[memo_key]
    return found


def receiver_value(
    receiver: Node, fn: scope.Item, st: State, frame: Frame, depth: int
) -> Value | None:
    """The value `self` has in the method `fn` called on `receiver`: the receiver's, when it is
    a known struct value (`Fields`) of the type whose impl `fn` is in, or one of the variants
    of the enum it is in (`size.dims()` with `size` known to be `Size::Tiny`)."""
    owner = fields.method_owner(fn.node, state_for(fn.unit, st))
    if owner is None:
        variants = fields.enum_variants_of_method(fn.node, state_for(fn.unit, st))
        found = st.value(receiver, frame, depth + 1) if variants else None
        return found if found is not None and found.value in variants else None
    found = st.value(receiver, frame, depth + 1)
    if found is None or not isinstance(found.value, Fields):
        return None
    mine = found.value.owner
    return found if mine.node.id == owner.node.id and mine.unit is owner.unit else None


def returned(fn: scope.Item, st: State, frame: Frame, depth: int, what: Any) -> Any:
    """`what(state, expr, frame, depth)` (`State.value` or `State.shape`) of every value `fn`
    returns in `frame` (its tail
    expression and each `return`), when they all agree; None otherwise."""
    body = child_by_field(fn.node, "body")
    if body is None:
        return None
    owner = state_for(fn.unit, st)
    exits_key = ("evaluate", "exits", body.id)
    exits = owner.memo.get(exits_key)
    if exits is None:  # once per function (a body's walk, not once per call of it)
        exits = owner.memo[exits_key] = body_exits(body, fn.unit.src)
    if not exits:
        return None
    owner.steps = st.steps
    results = [what(owner, e, frame, depth + 1) for e in exits]
    st.steps = max(st.steps, owner.steps)
    first = results[0]
    if first is None or any(r is None or result_key(r) != result_key(first) for r in results[1:]):
        return None
    return first


def result_key(result: Any) -> Any:
    """What two answers (values, shapes) must share to agree."""
    return (repr(getattr(result, "value", result)), repr(getattr(result, "dims", None)),
            repr(getattr(getattr(result, "shape", None), "dims", None)))  # fmt: skip


def body_exits(body: Node, src: bytes) -> list[Node]:
    """The tail expression of a function body and the values of its `return`s (not those of
    closures or nested functions); [] when one `return` has no value or the body has no tail.
    A body (of `src`) that never writes `return` is not walked."""
    items = [c for c in body.named_children if "comment" not in c.type]
    tail = block_tail(body)
    out = [tail] if tail is not None else []
    if src.find(b"return", body.start_byte, body.end_byte) < 0:
        return out
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type in ("closure_expression", "function_item", "async_block"):
            continue
        if node.type == "return_expression":
            if not node.named_children:
                return []
            out.append(node.named_children[0])
            continue
        stack.extend(node.named_children)
    if tail is None and len(out) == 0:
        return []
    if tail is None and not _ends_in_return(items):
        return []
    return out


def _ends_in_return(items: list[Node]) -> bool:
    last = items[-1] if items else None
    inner = last.named_children[0] if last is not None and last.named_children else None
    return inner is not None and inner.type == "return_expression"


def closure_call(call: Node, st: State, frame: Frame, depth: int) -> tuple[Node, Frame] | None:
    """`down(3, w)` of `let down = |c_in, c_out| ..;` (a `let` that is not changed since): the
    closure's result expression (its body, or that block's tail) and the frame it runs in at
    this call, its parameters' values where known, inside the caller's `frame` (what it
    captures is read there); None for any other call or one that may not be followed."""
    callee = child_by_field(call, "function")
    if callee is None or callee.type != "identifier":
        return None  # (most calls: a path or a method, no closure)
    found = st.binding(callee)
    closure = found.value if found is not None and found.kind == "let" else None
    while closure is not None and closure.type == "parenthesized_expression":
        closure = closure.named_children[0] if closure.named_children else None
    if closure is None or closure.type != "closure_expression":
        return None
    args = call_parts(call)[1]
    if closure.id in frame.calls or len(frame.calls) >= MAX_CALL_DEPTH:
        return None
    params = child_by_field(closure, "parameters")
    names: list[str | None] = []
    for param in params.named_children if params is not None else ():
        pattern = child_by_field(param, "pattern") if param.type == "parameter" else param
        names.append(st.unit.text(pattern) if pattern is not None and pattern.type ==
                     "identifier" else None)  # fmt: skip
    body = child_by_field(closure, "body")
    if body is not None and body.type == "block":
        body = block_tail(body)
    if body is None or len(names) != len(args):
        return None
    given: dict[str, Any] = {}
    key: list[Any] = [closure.id, id(frame)]
    for name, arg in zip(names, args, strict=True):
        if name is None:
            continue
        known = _argument(arg, st, frame, depth)
        if known is not None:
            given[name] = known
            key.append(_keyed(name, known))
    return body, _frame(st, key, frame, closure, given, f"{st.unit.text(callee)}(..)", frame)


def into_value(call: Node, target: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """`x.into()` whose result the written type `target` (a `let`'s) says: the value the one
    `from` of that type's impls (`impl From<Size> for Dims`) returns for `x`; None when the
    type is not the crate's or has no such single function."""
    parts = method_call(call)
    owner = fields.struct_named(target, st.unit, st)
    if parts is None or owner is None or parts[2] or st.unit.text(parts[1]) != "into":
        return None
    fn = _method(owner.unit, child_by_field(owner.node, "name"), "from")
    params = child_by_field(fn.node, "parameters") if fn is not None else None
    given = [p for p in params.named_children if p.type == "parameter"] if params else []
    pattern = child_by_field(given[0], "pattern") if len(given) == 1 else None
    if fn is None or pattern is None or pattern.type != "identifier":
        return None
    if fn.node.id in frame.calls or len(frame.calls) >= MAX_CALL_DEPTH:
        return None
    known = _argument(parts[0], st, frame, depth)
    name = fn.unit.text(pattern)
    key: list[Any] = [fn.node.id, *([_keyed(name, known)] if known is not None else [])]
    inner = _frame(st, key, frame, fn.node, {name: known} if known else {}, "from(..)", None)
    found: Value | None = returned(fn, st, inner, depth, State.value)
    if found is None:
        return None
    return Value(found.value, found.origin, None, found.note, found.path, found.shape,
                 (*found.steps, f"from(..) by .into() at {at(call)}"))  # fmt: skip


def call_value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """The value a call of a crate function (or of a closure bound by `let`) returns,
    evaluated with the call's arguments."""
    found: Value | None
    closure = closure_call(node, st, frame, depth)
    if closure is not None:
        found = st.value(closure[0], closure[1], depth + 1)
        if found is None:
            return None
        return Value(found.value, found.origin, None, found.note, found.path, found.shape,
                     (*found.steps, f"returned by {closure[1].label} at {at(node)}"))  # fmt: skip
    fn = callee_fn(node, st)
    inner = frame_for(node, fn, st, frame, depth) if fn is not None else None
    if fn is None or inner is None:
        return None
    found = returned(fn, st, inner, depth, State.value)
    if found is None:
        return None
    return Value(found.value, found.origin, None, found.note, found.path, found.shape,
                 (*found.steps, f"returned by {inner.label} at {at(node)}"))  # fmt: skip

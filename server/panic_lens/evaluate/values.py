"""The value of an expression: ints (Rust's integer arithmetic: truncating `/`, `%` with the
dividend's sign, shifts), floats, bools, strings, enum variants (their name), `None`/`Some`,
lists (arrays, tuples, `vec![..]`), burn's `Slice`s (ranges, `s![..]`), through locals,
consts and statics of any module of the crate (`evaluate.scope`), casts, and calls of the
crate's own functions (`evaluate.calls`). Tensors are `evaluate.tensors`'. Unknown is None.
"""

from __future__ import annotations

import math
import re
from typing import Any

from panic_lens.evaluate import (
    calls,
    fields,
    flow,
    iterators,
    lengths,
    mutations,
    scope,
    slices,
    tensors,
)
from panic_lens.evaluate.dims import dims_read, pattern_dim
from panic_lens.evaluate.literals import (
    _INTS,
    _PRIMITIVES,
    FLOAT_OPS,
    INT_OPS,
    at,
    parse_float_literal,
    parse_int_literal,
    strip,
)
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import MAX_DEPTH, Frame, State, Value, register, state_for
from panic_lens.rust.syntax import Node, call_parts, child_by_field, method_call, span_of

# calls that give back their receiver's value (a list's `to_vec` is the same items)
TRANSPARENT = frozenset({"into", "clone", "to_owned", "to_string", "to_vec"})


def value(node: Node | None, st: State, frame: Frame, depth: int = 0) -> Value | None:
    """The value of `node` in `frame` (memoised per node and frame)."""
    node = strip(node)
    if node is None or depth > MAX_DEPTH:
        return None
    key = ("value", node.id, id(frame))
    if key in st.memo:
        return st.memo[key]
    st.tick()
    found = _value(node, st, frame, depth)
    if found is not None and found.written is None and found.origin is not None:
        found = Value(found.value, found.origin, node, found.note, found.path, found.shape,
                      found.steps)  # fmt: skip
    st.memo[key] = found
    return found


def _value(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    unit, kind = st.unit, node.type
    if kind == "integer_literal":
        number = parse_int_literal(unit.text(node))
        return None if number is None else Value(number, span_of(node), path=unit.path)
    if kind == "float_literal":
        real = parse_float_literal(unit.text(node))
        return None if real is None else Value(real, span_of(node), path=unit.path)
    if kind == "boolean_literal":
        return Value(unit.text(node) == "true", span_of(node), path=unit.path)
    if kind == "string_literal":
        text = unit.text(node)
        if "\\" in text or not text.startswith('"'):
            return None
        return Value(text[1:-1], span_of(node), path=unit.path)
    if kind == "identifier":
        return _name(node, st, frame, depth)
    if kind == "self":  # in a method whose caller is followed: the call's receiver
        return flow.self_value(node, st, frame)
    if kind == "type_identifier":  # a const generic argument (`::<RANK>`) names a const
        generic = flow.const_generic(node, st, frame)  # or the function's own (`::<K>`)
        if generic is not False:
            return generic if isinstance(generic, Value) else None
        return _item_value(st.item_at(node), st, depth)
    if kind in ("scoped_identifier", "scoped_type_identifier"):
        return _path(node, st, depth)
    if kind == "unary_expression":
        return _unary(node, st, frame, depth)
    if kind == "binary_expression":
        return _binary(node, st, frame, depth)
    if kind == "type_cast_expression":
        return _cast(node, st, frame, depth)
    if kind in ("array_expression", "tuple_expression"):
        return _sequence(node, st, frame, depth)
    if kind == "struct_expression":
        name = child_by_field(node, "name")
        if name is not None and name.type in ("scoped_type_identifier", "scoped_identifier"):
            found = variant(name, st)
            if found is not None:
                return found
        return st.struct_value(node, frame, depth)  # a burn option struct's fields
    if kind == "range_expression":
        return slices.range_value(node, st, frame, depth)
    if kind == "macro_invocation":
        return slices.macro_value(node, st, frame, depth)
    if kind == "call_expression":
        return _call(node, st, frame, depth)
    if kind == "index_expression":
        return _index(node, st, frame, depth)
    if kind == "field_expression" and (sites := fields.field_sites(node, st)) is not None:
        found = fields.agreed([value(v, st, _MODULE_FRAME, depth + 1) for v, _ in sites])
        if found is not None:
            read = unit.text(node)
            steps = (*found.steps, f"{read}, as every literal of its struct sets it")
            return Value(found.value, found.origin, None, found.note or read, found.path, None,
                         steps)  # fmt: skip
        # the literals disagree or read values of their own functions: the value the frame's
        # `self` has (a method followed from a call on one value: `model.decode(z)`)
    if kind in ("block", "if_expression", "match_expression", "field_expression"):
        return flow.value_of_expression(node, st, frame, depth)
    return None


def _name(ident: Node, st: State, frame: Frame, depth: int) -> Value | None:
    unit = st.unit
    written = unit.text(ident)
    if written == "None":
        return Value(None, span_of(ident), path=unit.path)
    found = st.binding(ident)
    if found is not None and found.kind == "pattern" and found.decl.type == "expression_statement":
        changed = mutations.assigned_let(found, st)  # `let mut n = 6; n *= 4;`
        return mutations.changed_value(ident, changed, st, frame, depth) if changed else None
    if found is not None:
        if found.kind in ("param", "closure-param", "pattern"):
            given = flow.bound_elsewhere(ident, found, st, frame, depth)
            if given is None and found.kind == "pattern":
                part = flow.tuple_part(ident, found, st)  # `let (w, h) = (3, 4);`, `= size(..)`
                if part is not None:
                    return flow.tuple_element(part[0], part[1], st, frame, depth, State.value)
                return _pattern_dim(ident, found, st, frame, depth)
            return given
        bound = bound_value(ident, found, unit.src, unit.root)
        into = strip(bound) if bound is not None else None
        target = found.type_node
        if into is not None and target is not None and into.type == "call_expression":
            inner = calls.into_value(into, target, st, frame, depth + 1)  # `let d: D = s.into();`
            if inner is not None:
                return inner
        if bound is None and found.kind == "let":  # `let mut w = vec![..]; w[2] = 0.0;`
            return mutations.changed_value(ident, found, st, frame, depth)
        inner = value(bound, st, frame, depth + 1) if bound is not None else None
        if inner is None:
            return None
        note = inner.note or f"let {found.name}"
        return Value(inner.value, inner.origin, None, note, inner.path, inner.shape,
                     (*inner.steps, f"let {found.name} at {at(found.decl)}"))  # fmt: skip
    generic = flow.const_generic(ident, st, frame)  # `K` of `fn f<const K: usize>`
    if generic is not False:
        return generic if isinstance(generic, Value) else None
    return _item_value(st.item_at(ident), st, depth)


def _pattern_dim(ident: Node, found: Any, st: State, frame: Frame, depth: int) -> Value | None:
    """A name a slice pattern binds from a tensor's dims (`let [batch, _, width] = x.dims();`),
    when that dim is a known int."""
    dim = pattern_dim(ident, found, st, frame, depth)
    if type(dim) is not int:
        return None
    let = found.decl.parent
    bound = child_by_field(let, "value")
    read = st.unit.text(bound) if bound is not None else "?"
    step = f"let {st.unit.text(found.decl)} = {read} at {at(let)}"
    return Value(dim, span_of(found.decl), None, f"{found.name}, a dim", st.unit.path, None,
                 (step,))  # fmt: skip


def _index(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """`list[i]` of a known list (`x.dims()[1]`: a tensor's dim), when `i` is in range."""
    if len(node.named_children) != 2:
        return None
    base, index = node.named_children
    at_ = value(index, st, frame, depth + 1)
    if at_ is None or type(at_.value) is not int:
        return None
    listed = value(base, st, frame, depth + 1)
    if (
        listed is None
        or not isinstance(listed.value, list)
        or not 0 <= at_.value < len(listed.value)
    ):
        return None
    return _derived(listed.value[at_.value], node, listed, at_, st)


def _path(node: Node, st: State, depth: int) -> Value | None:
    unit = st.unit
    text = unit.text(node).replace(" ", "")
    parts = text.split("::")
    if len(parts) >= 2 and parts[-2] in _PRIMITIVES:
        return None  # `usize::MAX`, `f32::EPSILON`: never a width a rule reads
    item = st.item_at(node)
    if item is not None:
        return _item_value(item, st, depth)
    return variant(node, st)


def _item_value(item: scope.Item | None, st: State, depth: int) -> Value | None:
    """The value of a const or static of the crate (evaluated in its own file)."""
    if item is None or item.node.type not in ("const_item", "static_item"):
        return None
    owner = state_for(item.unit, st)
    owner.steps = st.steps
    body = child_by_field(item.node, "value")
    name_node = child_by_field(item.node, "name")
    name = item.unit.text(name_node) if name_node is not None else "?"
    found = value(body, owner, _MODULE_FRAME, depth + 1) if body is not None else None
    st.steps = max(st.steps, owner.steps)
    if found is None or body is None:
        return None
    kind = "static" if item.node.type == "static_item" else "const"
    note = f"{kind} {name}"
    return Value(found.value, span_of(body), None, note, item.unit.path, found.shape,
                 (*found.steps, f"{kind} {name} at {at(body)}"))  # fmt: skip


_MODULE_FRAME = Frame()  # an item's value reads no function's parameters


def variant(path: Node, st: State) -> Value | None:
    """`PaddingConfig2d::Same` -> "Same": a variant of a type (a capitalised owner); consts
    (`usize::MAX`, `Self::SIZE`) are not variants."""
    text = st.unit.text(path).replace(" ", "")
    owner, _, name = text.rpartition("::")
    owner_name = owner.rsplit("::", 1)[-1]
    if not owner_name[:1].isupper() or not name[:1].isupper() or owner_name == "Self":
        return None
    if name.isupper() and (len(name) > 4 or (len(name) > 3 and "_" in name)):
        return None  # SCREAMING_CASE: an associated const
    return Value(name, span_of(path), path=st.unit.path)


def _unary(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    text = st.unit.text(node).lstrip()
    inner = value(node.named_children[0], st, frame, depth + 1) if node.named_children else None
    if inner is None:
        return None
    v = inner.value
    if text.startswith("*"):
        return inner  # a dereference reads the same value
    if text.startswith("-") and type(v) in (int, float):
        return _derived(-v, node, inner, inner, st)
    if text.startswith("!") and type(v) is bool:
        return _derived(not v, node, inner, inner, st)
    return None


def _derived(v: Any, node: Node, a: Value, b: Value | None, st: State) -> Value:
    """A value computed at `node` from `a` (and `b`): set where `node` is, in `st`'s file
    (whatever files its operands come from)."""
    note = a.note if a.note and (b is None or not b.note) else (b.note if b else "") or a.note
    steps = (*a.steps, *(b.steps if b is not None and b is not a else ()))
    return Value(v, span_of(node), None, note, st.unit.path, None, steps)


_COMPARE: dict[str, Any] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}  # fmt: skip


def _binary(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    op_node = child_by_field(node, "operator")
    op = st.unit.text(op_node) if op_node is not None else ""
    left = value(child_by_field(node, "left"), st, frame, depth + 1)
    if left is None:
        return None
    if op in ("&&", "||") and type(left.value) is bool and left.value == (op == "||"):
        return _derived(left.value, node, left, None, st)  # short-circuits as Rust does
    right = value(child_by_field(node, "right"), st, frame, depth + 1)
    if right is None:
        return None
    a, b = left.value, right.value
    if type(a) is int and type(b) is int and op in INT_OPS:
        result = INT_OPS[op](a, b)
    elif type(a) is float and type(b) is float and op in FLOAT_OPS:
        result = FLOAT_OPS[op](a, b)
    elif op in _COMPARE and type(a) is type(b) and type(a) in (int, float, bool, str):
        result = _COMPARE[op](a, b)
    elif op in ("&&", "||") and type(a) is bool and type(b) is bool:
        result = b
    else:
        return None  # Rust mixes no ints with floats
    return None if result is None else _derived(result, node, left, right, st)


def _round(x: float) -> float:
    """Rust's `round`: half away from zero."""
    return float(math.floor(x + 0.5)) if x >= 0 else -float(math.floor(-x + 0.5))


def _next_power_of_two(a: int) -> int | None:
    return None if a < 0 else 1 if a <= 1 else 1 << (a - 1).bit_length()


def _real(result: float) -> float | None:
    return None if result != result or abs(result) == float("inf") else result


# Rust's methods of numbers whose result the evaluator computes: name -> (the types of the
# receiver and arguments, the function; None where Rust's answer depends on the exact integer
# type (a negative `saturating_sub`, which an unsigned type makes 0) or is not a number)
_I, _F = (int,), (float,)
_NUMBER_METHODS: dict[str, tuple[tuple[type, ...], int, Any]] = {
    "min": (_I + _F, 1, min), "max": (_I + _F, 1, max),
    "clamp": (_I + _F, 2, lambda a, lo, hi: min(max(a, lo), hi) if lo <= hi else None),
    "abs": (_I + _F, 0, abs),
    "pow": (_I, 1, lambda a, e: a**e if 0 <= e <= 128 and abs(a) ** e < 1 << 128 else None),
    "div_ceil": (_I, 1, lambda a, b: -(-a // b) if a >= 0 and b > 0 else None),
    "next_multiple_of": (_I, 1, lambda a, b: -(-a // b) * b if a >= 0 and b > 0 else None),
    "next_power_of_two": (_I, 0, _next_power_of_two),
    "is_power_of_two": (_I, 0, lambda a: a > 0 and a & (a - 1) == 0),
    "ilog2": (_I, 0, lambda a: a.bit_length() - 1 if a > 0 else None),
    "isqrt": (_I, 0, lambda a: math.isqrt(a) if a >= 0 else None),
    "saturating_sub": (_I, 1, lambda a, b: a - b if a >= b else None),  # (unsigned: below)
    "saturating_add": (_I, 1, lambda a, b: a + b if a >= 0 and b >= 0 else None),
    "sqrt": (_F, 0, lambda a: math.sqrt(a) if a >= 0 else None),
    "floor": (_F, 0, lambda a: _real(float(math.floor(a))) if _real(a) is not None else None),
    "ceil": (_F, 0, lambda a: _real(float(math.ceil(a))) if _real(a) is not None else None),
    "round": (_F, 0, lambda a: _round(a) if _real(a) is not None else None),
    "trunc": (_F, 0, lambda a: float(int(a)) if _real(a) is not None else None),
    "powi": (_F, 1, lambda a, e: _real(a**e) if type(e) is int and abs(e) <= 1024 else None),
    "exp": (_F, 0, lambda a: _real(math.exp(a)) if a < 700 else None),
    "ln": (_F, 0, lambda a: math.log(a) if a > 0 else None),
    "log2": (_F, 0, lambda a: math.log2(a) if a > 0 else None),
    "log10": (_F, 0, lambda a: math.log10(a) if a > 0 else None),
    "recip": (_F, 0, lambda a: 1.0 / a if a != 0.0 else None),
}  # fmt: skip


def _number_method(
    node: Node, receiver: Node, called: str, margs: list[Node], st: State, frame: Frame,
    depth: int,
) -> Value | None:  # fmt: skip
    """`a.f(b..)` of a known number, computed as Rust does (`_NUMBER_METHODS`); an argument
    of another type than the receiver's (`powi`'s is an int) or unknown gives nothing."""
    types, arity, compute = _NUMBER_METHODS[called]
    if len(margs) != arity:
        return None
    inner = value(receiver, st, frame, depth + 1)
    if inner is None or type(inner.value) not in types:
        return None
    given = [value(a, st, frame, depth + 1) for a in margs]
    if any(g is None for g in given):
        return None
    args = [g.value for g in given if g is not None]
    same = called != "powi"  # (`powi(2)` takes an i32)
    if any(type(a) is not (type(inner.value) if same else int) for a in args):
        return None
    result = compute(inner.value, *args)
    if result is None and called == "saturating_sub" and _unsigned(receiver, st):
        result = 0  # `height.saturating_sub(224)` of a usize below 224
    if result is None:
        return None
    return _derived(result, node, inner, given[0] if given else None, st)


_UNSIGNED = frozenset(kind for kind in _INTS if kind.startswith("u"))


def _unsigned(written: Node, st: State) -> bool:
    """Whether `written` is of an unsigned integer type, as the code says: a literal's suffix,
    a name whose `let`, parameter, const or static declares it, or one a slice pattern binds
    from a tensor's `dims()` (`[usize; D]`)."""
    node = strip(written)
    if node is None:
        return False
    text = st.unit.text(node)
    if node.type == "integer_literal":
        return text.endswith(tuple(_UNSIGNED))
    if node.type != "identifier":
        return False
    found = st.binding(node)
    if found is None:  # a const or static of the crate, by its declared type
        item = st.item_at(node)
        kind = child_by_field(item.node, "type") if item is not None else None
        return kind is not None and item is not None and item.unit.text(kind) in _UNSIGNED
    if found.type_node is not None:
        return st.unit.text(found.type_node).strip() in _UNSIGNED
    if found.kind != "pattern":
        return False
    let = found.decl.parent
    bound = child_by_field(let, "value") if let is not None else None
    parts = method_call(bound) if bound is not None and bound.type == "call_expression" else None
    return parts is not None and st.unit.text(parts[1]) == "dims" and not parts[2]


def _cast(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    inner = value(child_by_field(node, "value"), st, frame, depth + 1)
    target = child_by_field(node, "type")
    if inner is None or target is None:
        return None
    kind, v = st.unit.text(target).strip(), inner.value
    if type(v) not in (int, float, bool):
        return None
    if kind in ("f32", "f64"):
        return _derived(float(v), node, inner, None, st)
    if kind in _INTS:
        if type(v) is float and (v != v or abs(v) == float("inf")):
            return None
        number = int(v)  # `as` truncates a float toward zero
        bits = int(kind[1:]) if kind[1:].isdigit() else 64
        low, high = (0, 1 << bits) if kind[0] == "u" else (-(1 << (bits - 1)), 1 << (bits - 1))
        if type(v) is float:
            number = min(max(number, low), high - 1)  # saturates, as Rust's float casts
        elif not low <= number < high:
            return None  # wraps: not what the author meant to write, leave it unknown
        return _derived(number, node, inner, None, st)
    return None


def _sequence(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    items = [c for c in node.named_children if "comment" not in c.type]
    length = child_by_field(node, "length") if node.type == "array_expression" else None
    if length is not None:  # `[x; n]`
        count = value(length, st, frame, depth + 1)
        item = value(items[0], st, frame, depth + 1) if items else None
        if count is None or item is None or type(count.value) is not int:
            return None
        if not 0 <= count.value <= 64:
            return None
        return Value([item.value] * count.value, span_of(node), path=st.unit.path)
    values = [_item(i, st, frame, depth) for i in items]
    if any(v is None for v in values):
        return None
    return Value([v.value for v in values if v is not None], span_of(node), path=st.unit.path)


def _item(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """An item of a list: its value, else its tensor value; a parameter a caller gives as a
    tensor (a value of no value that holds the argument's shape) is read as the tensor."""
    found = value(node, st, frame, depth + 1)
    if found is not None and (found.value is not None or found.shape is None):
        return found
    return _tensor(node, st, frame, depth) or found


def _tensor(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    """An item of a list that is a tensor (`vec![a, b]` of `Tensor::cat`): its value as rules
    read it (`tensors.tensor_value`), when its rank is known."""
    found = st.shape(node, frame, depth + 1)
    if found is None or found.dims is None:
        return None
    return tensors.tensor_value(found, span_of(node), st.unit.path, node)


# `Vec::new()`, `Vec::<f32>::new()`, `Vec::with_capacity(n)`: an empty list (a `let mut` one
# is known only up to its first change, as every local)
_EMPTY_VEC = re.compile(r"(?:(?:std|alloc)::vec::)?Vec(?:::<.*>)?::(?:new|with_capacity)")


def _call(node: Node, st: State, frame: Frame, depth: int) -> Value | None:
    unit = st.unit
    callee, args = call_parts(node)
    if callee is None:
        return None
    name = unit.text(callee).replace(" ", "")
    if name == "Some" and len(args) == 1:
        return value(args[0], st, frame, depth + 1)
    if _EMPTY_VEC.fullmatch(name) and len(args) == (0 if name.endswith("new") else 1):
        return Value([], span_of(node), path=unit.path)  # as `vec![]`
    if name.rsplit("::", 2)[-2:] in (["Shape", "new"], ["Shape", "from"]):
        found = value(args[0], st, frame, depth + 1) if len(args) == 1 else None
        return found if found is not None and isinstance(found.value, list) else None
    if callee.type == "scoped_identifier" and st.item_at(callee) is None:
        found = variant(callee, st)  # a tuple variant: `PaddingConfig2d::Explicit(1, 1)`
        if found is not None:
            return found
    parts = method_call(node)
    if parts is not None:
        receiver, method, margs = parts
        called = unit.text(method)
        if called in TRANSPARENT and not margs:
            return value(receiver, st, frame, depth + 1)
        if called == "len" and not margs:  # a known list's length (`PINNED.len()`)
            inner = value(receiver, st, frame, depth + 1)
            if inner is not None and isinstance(inner.value, list):
                return _derived(len(inner.value), node, inner, None, st)
            count = lengths.length(receiver, st, frame, depth + 1)  # items not known
            if count is None:
                return None
            note = f"{unit.text(receiver)}.len()"
            return Value(count, span_of(node), None, note, unit.path, None, (f"{note} = {count}",))
        if called in _NUMBER_METHODS:  # `(d_model as f32).sqrt()`, `n.div_ceil(8)`, `k.min(5)`
            found = _number_method(node, receiver, called, margs, st, frame, depth)
            if found is not None:
                return found
        if called in iterators.METHODS:  # `sizes.iter().sum::<usize>()` of a known list
            found = iterators.chain_value(node, st, frame, depth)
            if found is not None:
                return found
        if called == "unwrap_or" and len(margs) == 1:  # an Option's value, or the default
            inner = value(receiver, st, frame, depth + 1)
            if inner is None:
                return None
            return value(margs[0], st, frame, depth + 1) if inner.value is None else inner
        if called in ("dims", "shape") and not margs:  # a tensor's dims, when all are known
            dims = dims_read(node, st, frame, depth)
            if dims is not None and all(type(d) is int for d in dims):
                return Value(list(dims), span_of(node), None, f"{unit.text(receiver)}'s dims",
                             unit.path)  # fmt: skip
        if called.startswith("with_") and len(margs) == 1:  # a setter: `cfg.with_groups(3)`
            found = st.struct_value(node, frame, depth, True)
            if found is not None:
                return found
    elif callee.type == "scoped_identifier" and st.item_at(callee) is None:
        found = st.struct_value(node, frame, depth)  # a constructor: `StftOptions::new(512)`
        if found is not None:
            return found
        if not args and name.endswith("::default"):  # `ClipSpec::default()` of a derive
            path = child_by_field(callee, "path")
            owner = st.item_at(path) if path is not None else None
            if owner is not None and calls.callee_fn(node, st) is None:
                return fields.derived_default(owner, st)
    return calls.call_value(node, st, frame, depth)


register("value", value)

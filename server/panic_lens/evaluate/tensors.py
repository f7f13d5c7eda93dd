"""The shape of a tensor expression (`evaluate.shapes.Shape`): from its constructor (`zeros`,
`ones`, `full`, `empty`, `random`, `arange`, `from_data` of an array literal or a
`TensorData::new(.., shape)`), its declared type (`x: Tensor<B, 3>`: rank 3, each dim a `Sym` of
that binding, the same value wherever it is read), through locals, the crate's own functions
(`evaluate.calls`) and every op burn's table knows (`evaluate.ops`: methods, free functions,
operators). The shapes of literal data are `evaluate.data_shapes`'; the burn modules a tensor
goes through (their forwards, their parameters) `evaluate.module_values`'. Unknown is None.
"""

from __future__ import annotations

from typing import Any

from panic_lens.evaluate import (
    calls,
    data_shapes,
    fields,
    flow,
    invariants,
    loops,
    module_values,
    ops,
    shapes,
)
from panic_lens.evaluate.dims import dims_arg, note_made
from panic_lens.evaluate.flow import bound_elsewhere
from panic_lens.evaluate.literals import at, block_tail, strip
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.shapes import Shape, Sym
from panic_lens.evaluate.state import MAX_DEPTH, Frame, State, Value, register
from panic_lens.rust.burn_api import TENSOR_CONSTRUCTORS, TENSOR_FROM, tensor_type_args
from panic_lens.rust.syntax import (
    Node,
    call_parts,
    child_by_field,
    method_call,
    path_segments,
    span_of,
)

_SITE = Frame()  # a struct literal's value, read where the literal is (no call followed)
# Not ops of the table: the same tensor data under another type (the backend's primitive).
_SAME_DATA = frozenset({"into_primitive"})


def shape(node: Node | None, st: State, frame: Frame, depth: int = 0) -> Shape | None:
    """The shape of `node` in `frame`, memoised per node and frame."""
    node = strip(node)
    if node is None or depth > MAX_DEPTH:
        return None
    key = ("shape", node.id, id(frame))
    if key in st.memo:
        return st.memo[key]
    st.tick()
    found = _shape(node, st, frame, depth)
    st.memo[key] = found
    return found


def _shape(node: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    kind = node.type
    if kind == "identifier":
        return _local(node, st, frame, depth)
    if kind in ("scoped_identifier", "type_identifier"):  # `Self::ANCHORS`, `hparams::GRID`
        return data_shapes.item_shape(node, st, depth)
    if kind == "array_expression":
        return data_shapes.array_shape(node, st, frame, depth)
    if kind == "call_expression":
        return _call(node, st, frame, depth)
    if kind == "field_expression":
        return _field(node, st, frame, depth)
    if kind in ("block", "if_expression", "match_expression"):
        return _branches(node, st, frame, depth)
    if kind == "index_expression":
        return _piece(node, st, frame, depth)
    if kind == "binary_expression":
        op = child_by_field(node, "operator")
        left = _operand(child_by_field(node, "left"), st, frame, depth)
        right = _operand(child_by_field(node, "right"), st, frame, depth)
        if left is None or right is None or op is None:
            return None
        if not isinstance(left, Shape) and not isinstance(right, Shape):
            return None
        return ops.binary_shape(st.unit.text(op), left, right)
    return None


def _piece(node: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """`parts[i]` where `parts` is what `x.chunk(n, dim)`, `x.split(size, dim)` or
    `x.split_with_sizes(sizes, dim)` returns (written there, or bound by a `let` that is not
    `mut`): the shape of the i-th piece, as the ops table gives each piece."""
    items = [c for c in node.named_children if "comment" not in c.type]
    if len(items) != 2:
        return None
    base, index = strip(items[0]), items[1]
    at_index = st.value(index, frame, depth + 1)
    if base is None or at_index is None or type(at_index.value) is not int:
        return None
    if base.type == "identifier":
        found = st.binding(base)
        if found is None or found.kind != "let":
            return None
        base = strip(bound_value(base, found, st.unit.src, st.unit.root))
    parts = method_call(base) if base is not None else None
    if parts is None:
        return None
    receiver, name_node, args = parts
    inner = shape(receiver, st, frame, depth + 1)
    if inner is None:
        return None
    values = [_arg(a, st, frame, depth) for a in args]
    pieces = ops.method_outputs(st.unit.text(name_node), inner, values)
    if pieces is None or not 0 <= at_index.value < len(pieces):
        return None
    return pieces[at_index.value]


def _field(node: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """`self.f` as every literal of its struct sets it; `batch.images` of `let batch = Batch {
    images: .., .. }`; else the rank the field's declared type gives (`frames: Tensor<B, 3>`
    of the struct a parameter, a typed `let` or `self` is)."""
    sites = fields.field_sites(node, st)
    if sites is not None:
        found = fields.agreed([shape(v, st, _SITE, depth + 1) for v, _ in sites],
                              key=lambda s: repr(s.dims))  # fmt: skip
        if found is not None:
            return found.then(f"{st.unit.text(node)}, as every literal of its struct sets it")
    else:
        field = child_by_field(node, "field")
        init = (
            flow.literal_field(child_by_field(node, "value"), st.unit.text(field), st)
            if field is not None and field.type == "field_identifier"
            else None
        )
        inner = shape(init, st, frame, depth + 1) if init is not None else None
        if inner is not None:
            return inner
    return _declared_field(node, st)


def _declared_field(node: Node, st: State) -> Shape | None:
    """A field whose struct declares it a tensor of a literal rank: that rank, each dim a `Sym`
    of the field read through its binding (the same wherever it is read, unless the binding is
    `mut` or the field is assigned somewhere in the file: then of this read only)."""
    declared = fields.declared_type(node, st)
    if declared is None:
        return None
    kind, unit = declared
    rank = _literal_rank(tensor_type_args(unit.text(kind)))
    if rank is None or fields.struct_named(kind, unit, st) is not None:
        return None  # not a tensor of a literal rank, or the crate's own `Tensor`
    text = "".join(st.unit.text(node).split())
    where = f"{_field_root(node, st)}:{text}"
    dims = tuple(Sym(f"{where}#{i}", f"{text}.dims[{i}]") for i in range(rank))
    return Shape(dims, (f"field `{text}: {unit.text(kind)}` as its struct declares it",))


def _field_root(node: Node, st: State) -> str:
    """What identifies the value a field chain (`b.inner.frames`) is read from: its root
    binding's declaration, when neither it nor a field of the chain may change; else this
    read."""
    names = []
    root: Node | None = node
    while root is not None and root.type == "field_expression":
        field = child_by_field(root, "field")
        names.append(st.unit.text(field) if field is not None else "")
        root = child_by_field(root, "value")
    binding = st.binding(root) if root is not None and root.type in ("identifier", "self") else None
    if binding is None or binding.kind not in ("param", "self", "let") or _mutable(binding):
        return f"read@{node.start_byte}"
    for name in names:
        if fields.assigned(name, st):
            return f"read@{node.start_byte}"
    return f"{binding.decl.start_byte}"


def _mutable(binding: Any) -> bool:
    """`mut b`, `let mut b`, `b: &mut T`, `&mut self`: its fields may change."""
    holders = (binding.decl, binding.decl.parent, binding.type_node)
    return any(
        h is not None and any(c.type == "mutable_specifier" for c in h.children) for h in holders
    )


def _branches(node: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """A block's tail; the branch of an `if` whose condition is known; else the shape every
    branch of an `if` or arm of a `match` agrees on (a branch that leaves, as `return` or
    `panic!(..)` do, gives none to agree with)."""
    if node.type == "block":
        tail = block_tail(node)
        return shape(tail, st, frame, depth + 1) if tail is not None else None
    ways: list[Node | None]
    if node.type == "if_expression":
        branches = flow.if_branches(node, st, frame, depth)
        if branches is None:
            return None
        if len(branches) == 1:  # the condition is known
            return shape(branches[0], st, frame, depth + 1)
        ways = list(branches)
    else:
        body = child_by_field(node, "body")
        arms = [
            a for a in (body.named_children if body is not None else ()) if a.type == "match_arm"
        ]
        ways = [child_by_field(arm, "value") for arm in arms]
    if not ways or any(w is None for w in ways):
        return None
    found = [shape(w, st, frame, depth + 1) for w in ways if w is not None and not _leaves(w, st)]
    agreed = fields.agreed(found, key=lambda s: repr(s.dims))
    if agreed is None or agreed.dims is None:
        return None
    kind = "branch of the if" if node.type == "if_expression" else "arm of the match"
    return agreed.then(f"every {kind} at {at(node)} gives {shapes.format_dims(agreed.dims)}")


_LEAVING_MACROS = ("panic!", "unreachable!", "todo!", "unimplemented!")


def _leaves(way: Node, st: State) -> bool:
    """A branch that never gives a value: `return ..`, `break`, `continue`, `panic!(..)` (also
    as a block's tail)."""
    while way.type == "block":
        tail = block_tail(way)
        if tail is None:
            return False
        way = tail
    if way.type in ("return_expression", "break_expression", "continue_expression"):
        return True
    # an expression macro's `!` is read as a space (`syntax.parse_code`): a call node then
    return way.type in ("macro_invocation", "call_expression") and st.unit.text(way).replace(
        " ", ""
    ).startswith(_LEAVING_MACROS)


def _operand(node: Node | None, st: State, frame: Frame, depth: int) -> Any:
    """An operand of `+ - * / %`: a tensor's shape, or a number."""
    found = shape(node, st, frame, depth + 1)
    if found is not None:
        return found
    scalar = _scalar(node, st, frame, depth)
    return scalar if type(scalar) in (int, float) else None


def _scalar(node: Node | None, st: State, frame: Frame, depth: int) -> Any:
    found = st.value(node, frame, depth + 1)
    return found.value if found is not None else None


def _tuple_shape(
    expr: Node, path: tuple[int | str, ...], st: State, frame: Frame, depth: int
) -> Shape | None:
    """The shape of one element of a tuple: of burn's ops that give two tensors
    (`x.var_mean(1)`, `x.max_dim_with_indices(0)`), of a burn module's forward that returns
    its output and state (`lstm.forward(x, None)`), or as `flow.tuple_element` finds it."""
    at_ = path[0] if len(path) == 1 and isinstance(path[0], int) else None
    parts = method_call(expr) if at_ is not None else None
    if parts is not None and st.unit.text(parts[1]) == "forward" and parts[2]:
        module = module_values.forward_shape(parts[0], parts[2], st, frame, depth, at_)
        if module is not None:
            return module
    if parts is not None:
        receiver, name_node, args = parts
        inner = shape(receiver, st, frame, depth + 1)
        values = [_arg(a, st, frame, depth) for a in args] if inner is not None else []
        pieces = ops.method_outputs(st.unit.text(name_node), inner, values) if inner else None
        if pieces is not None and at_ is not None:
            return pieces[at_] if at_ < len(pieces) else None
    found: Shape | None = flow.tuple_element(expr, path, st, frame, depth, State.shape)
    return found


def _local(ident: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    unit = st.unit
    found = st.binding(ident)
    if found is None:
        return data_shapes.item_shape(ident, st, depth)
    if found.kind == "pattern" and found.decl.type == "expression_statement":
        return invariants.shape_after_loop(ident, found, st, frame, depth)  # `for .. { x = .. }`
    if found.kind in ("param", "closure-param", "pattern"):
        given = bound_elsewhere(ident, found, st, frame, depth)
        if given is not None and given.shape is not None:
            return given.shape
        if given is not None and isinstance(given.value, list):  # an array a caller passes
            return data_shapes.list_shape(
                given.value, f"`{found.name}` as given at {at(found.decl)}"
            )
        part = flow.tuple_part(ident, found, st) if found.kind == "pattern" else None
        if part is not None:  # `let (raw, fine) = model.forward(x);`
            inner = _tuple_shape(part[0], part[1], st, frame, depth)
            if inner is not None:
                return inner
        body = loops.previous_map(found.decl, st) if found.kind == "closure-param" else None
        inner = shape(body, st, frame, depth + 1) if body is not None else None
        if inner is not None:  # each value an earlier `.map(|x| ..)` returns
            return inner
    else:
        bound = bound_value(ident, found, unit.src, unit.root)
        inner = shape(bound, st, frame, depth + 1) if bound is not None else None
        if inner is None and bound is None and frame.args:
            inner = invariants.entering(ident, found, frame)  # a turn of a loop being checked
        if inner is not None:
            return inner
    if found.type_node is None:
        return None
    rank = _literal_rank(tensor_type_args(unit.text(found.type_node)))
    if rank is None:
        return None
    where = f"{found.decl.start_byte}:{found.name}"
    dims = tuple(Sym(f"{where}#{i}", f"{found.name}.dims[{i}]") for i in range(rank))
    what = "parameter" if found.kind == "param" else "let"
    return Shape(dims, (f"{what} `{found.name}: {unit.text(found.type_node)}` at "
                        f"{at(found.decl)}",))  # fmt: skip


def _call(call: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    unit = st.unit
    parts = method_call(call)
    if parts is not None:
        return _method(call, parts, st, frame, depth)
    callee, args = call_parts(call)
    turbofish = None
    if callee is not None and callee.type == "generic_function":
        callee = child_by_field(callee, "function")
    segments = path_segments(callee, unit.src) if callee is not None else None
    if not segments:
        return None
    owner, fn = (segments[-2] if len(segments) >= 2 else ""), segments[-1]
    if owner in ("Tensor", "TensorData") and callee is not None and not _burns(callee, st):
        owner = ""  # the crate's own `Tensor` (or another crate's): not burn's constructors
    text = unit.text(callee) if callee is not None else ""
    if "<" in text:
        turbofish = tensor_type_args("Tensor" + text[text.index("<") : text.rindex(">") + 1])
    step = f"{owner}::{fn}" if owner else fn
    found: Shape | None = None
    if owner == "Tensor" and fn == "arange" and args:
        found = _arange(args[0], st, frame, depth)
    elif owner == "Tensor" and (fn in TENSOR_CONSTRUCTORS or fn in _MASKS) and args:
        written = dims_arg(args[0], st, frame, depth)
        found = Shape(written, ()) if written is not None else None
    elif owner in ("Tensor", "TensorData") and fn in (*TENSOR_FROM, "from") and args:
        found = shape(args[0], st, frame, depth + 1)
    elif owner == "TensorData" and fn == "new" and len(args) >= 2:
        written = dims_arg(args[1], st, frame, depth)
        found = Shape(written, ()) if written is not None else None
    if found is not None and found.dims is not None:
        note_made(found, span_of(call), step, st)
        return found.then(f"{step}({found.text()}) at {at(call)}")
    rank = _literal_rank(turbofish)
    if found is None and owner == "Tensor" and rank is not None and fn in TENSOR_CONSTRUCTORS:
        return shapes.of_rank(rank, (f"{step} of rank {rank} at {at(call)}",))
    closure = calls.closure_call(call, st, frame, depth)
    if closure is not None:  # `let crop = |x, n| x.narrow(2, 0, n);` .. `crop(t, 9)`
        result = shape(closure[0], st, closure[1], depth + 1)
        return result.then(f"returned by {closure[1].label} at {at(call)}") if result else None
    fn_item = calls.callee_fn(call, st)
    if fn_item is not None:
        inner = calls.frame_for(call, fn_item, st, frame, depth)
        result = calls.returned(fn_item, st, inner, depth, State.shape) if inner else None
        if result is not None:
            return result.then(f"returned by {inner.label} at {at(call)}")  # type: ignore[union-attr]
        return _declared_rank(fn_item, call, st)
    path = st.resolve(callee) if callee is not None else None
    values = [_arg(a, st, frame, depth) for a in args]
    return ops.function_shape(path or "::".join(segments), values)


def _may_be_tensor(receiver: Node, st: State) -> bool:
    """Whether a receiver whose shape is unknown is burn's tensor (so burn's op applies): its
    declared type or the type the file shows says so; a name declared nowhere (a snippet)
    may be one. Another type's method of the same name (`reshape`) is not burn's."""
    node = strip(receiver)
    if node is None:
        return False
    if node.type == "identifier":
        found = st.binding(node)
        if found is None:
            return st.item_at(node) is None
        if found.type_node is not None:
            path = st.resolve(_type_name(found.type_node))
            return path is not None and path.startswith("burn::tensor::Tensor")
    facts = st.facts()
    if facts is None or facts.src is not st.unit.src:
        return False
    typed = facts.type_of(node)
    return typed is not None and typed.path == "burn::tensor::Tensor"


def _type_name(type_node: Node) -> Node:
    while type_node.type in ("reference_type", "generic_type"):
        inner = child_by_field(type_node, "type")
        if inner is None:
            break
        type_node = inner
    return type_node


def _burns(callee: Node, st: State) -> bool:
    """Whether a `Tensor::f` / `TensorData::f` path is burn's: it resolves to burn's type, or
    (a snippet that imports nothing) no item of the crate has that name."""
    path = st.resolve(callee)
    if path is not None:
        return path.startswith(("burn::tensor::Tensor::", "burn::tensor::TensorData::"))
    owner = child_by_field(callee, "path")
    return (
        owner is not None
        and st.item_at(owner) is None
        and not any(
            "Tensor" in names.uses or "TensorData" in names.uses
            for names in st.unit.imports.scope_chain(callee)
        )
    )


def _arg(node: Node, st: State, frame: Frame, depth: int) -> Any:
    """An op's argument as the table reads it: a tensor's Shape, a value, a list of those
    (an unknown item None)."""
    node = strip(node) or node
    if node.type == "identifier":
        found_binding = st.binding(node)
        bound = (
            bound_value(node, found_binding, st.unit.src, st.unit.root) if found_binding else None
        )
        array = strip(bound)
        if array is not None and array.type == "array_expression":
            node = array  # a local bound to an array: the array's items
        elif array is not None and array.type == "call_expression":
            node = array  # `let images = items.iter().map(..).collect::<Vec<_>>();`
    many = data_shapes.collected(node, st, frame, depth)
    if many is not None:
        return many
    if node.type == "array_expression" and child_by_field(node, "length") is None:
        items = [i for i in node.named_children if "comment" not in i.type]
        values = [st.value(i, frame, depth + 1) for i in items]
        if all(v is None or v.shape is None for v in values) and any(v for v in values):
            return [v.value if v is not None else None for v in values]
        listed = [shape(i, st, frame, depth + 1) for i in items]
        if items and all(s is not None for s in listed):
            return listed  # `vec![a, b.clone()]` of `Tensor::cat`
        return [None] * len(items)
    found = shape(node, st, frame, depth + 1)
    if found is not None:
        return found
    scalar = st.value(node, frame, depth + 1)
    return scalar.value if scalar is not None else None


# burn's Bool masks made to the shape their first argument gives (crates/burn-tensor/src/
# tensor/api/bool.rs: `tril_mask(shape, offset, device)`..)
_MASKS = frozenset({"tril_mask", "triu_mask", "diag_mask"})
# a burn module's methods whose output the ops table gives (a loss's reduced or not)
_MODULE_METHODS = frozenset({"forward", "forward_no_reduction", "forward_with_reduction"})


def _method(call: Node, parts: tuple[Node, Node, list[Node]], st: State, frame: Frame,
            depth: int) -> Shape | None:  # fmt: skip
    receiver, name_node, args = parts
    name = st.unit.text(name_node)
    # a receiver with a shape is a tensor: burn's op, never a method of the crate's own types
    # (asked first: most method calls are tensor ops, whose receiver's type need not be found)
    inner = None
    if receiver.type != "self" and name not in _MODULE_METHODS:
        inner = shape(receiver, st, frame, depth + 1)
    fn_item = calls.callee_fn(call, st) if inner is None else None
    if fn_item is not None and receiver.type != "self" and not _returns_tensor(fn_item):
        return None  # `model.layout()`: a method of the crate's type that gives no tensor
    if fn_item is not None:  # `self.helper(x)`, `model.forward(x)`: the crate's own method
        sub = calls.frame_for(call, fn_item, st, frame, depth)
        result = calls.returned(fn_item, st, sub, depth, State.shape) if sub else None
        if result is not None and sub is not None:
            return result.then(f"returned by {sub.label} at {at(call)}")
        return _declared_rank(fn_item, call, st)
    if name in _MODULE_METHODS and args:
        return module_values.forward_shape(receiver, args, st, frame, depth, method=name)
    field = strip(receiver) if name == "val" and not args else None
    param = module_values.param_shape(field, st, frame, depth) if field is not None else None
    if param is not None:
        return param
    if inner is None:
        inner = shape(receiver, st, frame, depth + 1)
    if inner is None:
        if not _may_be_tensor(receiver, st):
            return None  # a method of another type with a burn-like name
        inner = shapes.unknown()
    if name in _SAME_DATA and not args:
        return inner.then(f".{name}() is the same tensor") if inner.dims is not None else None
    values = [_arg(a, st, frame, depth) for a in args]
    callee = child_by_field(call, "function")
    generic = child_by_field(callee, "type_arguments") if callee is not None else None
    if generic is not None:  # `.unsqueeze::<3>()`: the rank it returns
        ranks = [c for c in generic.named_children if "comment" not in c.type]
        values.append(("rank", _scalar(ranks[0], st, frame, depth) if ranks else None))
    return ops.method_shape(name, inner, values)


def _declared_rank(fn: Any, call: Node, st: State) -> Shape | None:
    """A crate function's tensor of the rank its signature writes (`-> Tensor<2>`, `-> Tensor<B,
    3>`), its dims unknown, when what it returns is not followed."""
    kind = child_by_field(fn.node, "return_type")
    rank = _literal_rank(tensor_type_args(fn.unit.text(kind))) if kind is not None else None
    if rank is None:
        return None
    return shapes.of_rank(rank, (f"a Tensor<{rank}>, as its function declares, at {at(call)}",))


def _literal_rank(args: list[str] | None) -> int | None:
    """The rank a tensor type's generic arguments write as a number (`Tensor<B, 3>`: 3); None
    when none does (`Tensor<B, D>`), or more than one does."""
    ranks = [a for a in args or () if a.isdigit()]
    return int(ranks[0]) if len(ranks) == 1 else None


def _returns_tensor(fn: Any) -> bool:
    """Whether a function's declared return type is a tensor (`-> Tensor<B, 2>`)."""
    kind = child_by_field(fn.node, "return_type")
    return kind is not None and tensor_type_args(fn.unit.text(kind)) is not None


def _arange(item: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """`Tensor::arange(a..b, d)`: one dimension of b - a elements (none when b < a)."""
    arg = strip(item)
    if arg is None or arg.type != "range_expression" or "..=" in st.unit.text(arg):
        return None
    bounds = list(arg.named_children)
    if len(bounds) != 2:
        return None
    start, end = (st.value(b, frame, depth + 1) for b in bounds)
    if start is None or end is None or type(start.value) is not int or type(end.value) is not int:
        return None
    return Shape((max(end.value - start.value, 0),), ())


register("shape", shape)


def tensor_value(found: Shape, origin: Any, path: str | None, written: Node | None) -> Value:
    """A shape as the rule language reads it: `rank` when known; `dims` (a list) and `numel`
    when every dim is known; `dim`, a map of the dims that are known (by index, and by
    negative index too when the rank is known) so one known dim is read even when another is
    not. A dim known only at run time (a `Sym`) is absent from `dim`: unknown."""
    out: dict[str, Any] = {}
    dims = found.dims
    if dims is not None:
        out["rank"] = len(dims)
        known = {i: d for i, d in enumerate(dims) if shapes.is_int(d)}
        out["dim"] = {**known, **{i - len(dims): d for i, d in known.items()}}
        if len(known) == len(dims):
            out["dims"] = list(known.values())
            out["numel"] = shapes.product(known.values())
    note = " -> ".join(found.steps)
    return Value(out, origin, written, note, path, found, found.steps)

"""The shape of a tensor expression (`evaluate.shapes.Shape`): from its constructor (`zeros`,
`ones`, `full`, `empty`, `random`, `arange`, `from_data` of an array literal or a
`TensorData::new(.., shape)`), its declared type (`x: Tensor<B, 3>`: rank 3, each dim a `Sym` of
that binding, the same value wherever it is read), through locals, the crate's own functions
(`evaluate.calls`) and every op burn's table knows (`evaluate.ops`: methods, free functions,
operators). Unknown is None.
"""

from __future__ import annotations

import importlib
from typing import Any

from panic_lens.evaluate import calls, shapes
from panic_lens.evaluate.flow import bound_elsewhere
from panic_lens.evaluate.literals import at, strip
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.shapes import Shape, Sym
from panic_lens.evaluate.state import MAX_DEPTH, Frame, State, Value, register
from panic_lens.rust.burn_api import TENSOR_CONSTRUCTORS, TENSOR_FROM, tensor_type_args
from panic_lens.rust.locals import find_binding
from panic_lens.rust.syntax import (
    Node,
    call_parts,
    child_by_field,
    method_call,
    path_segments,
    span_of,
)

try:  # burn's ops as data (`evaluate.ops`)
    _ops: Any = importlib.import_module("panic_lens.evaluate.ops")
except ImportError:  # pragma: no cover - until the table's module lands
    _ops = None

_MAX_ARRAY_RANK = 8


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
    if kind == "array_expression":
        return _array(node, st, frame, depth)
    if kind == "call_expression":
        return _call(node, st, frame, depth)
    if kind == "binary_expression" and _ops is not None:
        op = child_by_field(node, "operator")
        left = shape(child_by_field(node, "left"), st, frame, depth + 1)
        right_node = child_by_field(node, "right")
        right: Any = shape(right_node, st, frame, depth + 1)
        if right is None:
            scalar = _scalar(right_node, st, frame, depth)
            right = scalar if type(scalar) in (int, float) else None
        if left is None or right is None or op is None:
            return None
        return _ops.binary_shape(st.unit.text(op), left, right)
    return None


def _scalar(node: Node | None, st: State, frame: Frame, depth: int) -> Any:
    found = st.value(node, frame, depth + 1)
    return found.value if found is not None else None


def _local(ident: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    unit = st.unit
    found = find_binding(ident, unit.src, unit.root)
    if found is None:
        return None
    if found.kind in ("param", "closure-param", "pattern"):
        given = bound_elsewhere(ident, found, st, frame, depth)
        if given is not None and given.shape is not None:
            return given.shape
    else:
        bound = bound_value(ident, found, unit.src, unit.root)
        inner = shape(bound, st, frame, depth + 1) if bound is not None else None
        if inner is not None:
            return inner
    if found.type_node is None:
        return None
    args = tensor_type_args(unit.text(found.type_node))
    ranks = [a for a in args or () if a.isdigit()]
    if len(ranks) != 1:
        return None
    where = f"{found.decl.start_byte}:{found.name}"
    dims = tuple(Sym(f"{where}#{i}", f"{found.name}.dims[{i}]") for i in range(int(ranks[0])))
    what = "parameter" if found.kind == "param" else "let"
    return Shape(dims, (f"{what} `{found.name}: {unit.text(found.type_node)}` at "
                        f"{at(found.decl)}",))  # fmt: skip


def _array(array: Node, st: State, frame: Frame, depth: int) -> Shape | None:
    """Dims of a nested array literal: `[[1, 2], [3, 4]]` -> [2, 2]; `[[0; 9]; 2]` -> [2, 9]."""
    dims: list[shapes.Dim] = []
    node: Node | None = array
    while node is not None and node.type == "array_expression" and len(dims) < _MAX_ARRAY_RANK:
        length = child_by_field(node, "length")
        elems = [c for c in node.named_children if c != length and "comment" not in c.type]
        if length is not None:
            count = st.value(length, frame, depth + 1)
            dims.append(count.value if count is not None and type(count.value) is int else None)
        else:
            dims.append(len(elems))
        node = elems[0] if elems else None
    return Shape(tuple(dims), (f"array literal {shapes.format_dims(dims)} at {at(array)}",))


def _dims_arg(
    arg: Node | None, st: State, frame: Frame, depth: int
) -> tuple[shapes.Dim, ...] | None:
    """A shape argument (`[N, S]`, `Shape::new([..])`, a local bound to one): its dims, each
    known or not; None when even its length is unknown."""
    arg = strip(arg)
    for _ in range(MAX_DEPTH):
        if arg is None:
            return None
        if arg.type == "identifier":
            found = find_binding(arg, st.unit.src, st.unit.root)
            if found is None:
                return None
            arg = strip(bound_value(arg, found, st.unit.src, st.unit.root))
            continue
        if arg.type == "call_expression":
            callee, inner = call_parts(arg)
            segments = path_segments(callee, st.unit.src) if callee is not None else None
            if segments and segments[-2:] in (["Shape", "new"], ["Shape", "from"]) and inner:
                arg = strip(inner[0])
                continue
            of = shape(arg, st, frame, depth + 1)  # `x.dims()` / `x.shape()` of a tensor
            return None if of is None else of.dims
        break
    if arg is None or arg.type != "array_expression" or child_by_field(arg, "length"):
        return None
    out: list[shapes.Dim] = []
    written: list[Value | None] = []
    for item in arg.named_children:
        if "comment" in item.type:
            continue
        found_value = st.value(item, frame, depth + 1)
        if found_value is not None and type(found_value.value) is int:
            out.append(found_value.value)
            written.append(found_value)
        else:
            out.append(_dim_of(item, st, frame, depth))
            written.append(None)
    dims = tuple(out)
    st.memo[("dim-values", id(dims))] = (dims, written)  # where each dim was written
    return dims


def made_at(found: Shape, st: State) -> tuple[Any, str] | None:
    """(span, what) of the constructor call that made a shape's dims (`Tensor::zeros`), kept
    through the ops that keep the shape; None when not made by one."""
    hit = st.memo.get(("made", id(found.dims)))
    return (hit[1], hit[2]) if hit is not None and hit[0] is found.dims else None


def dim_value(found: Shape, index: int, st: State) -> Value | None:
    """Where the dim `index` of a shape was written, when it was an argument of the call that
    made the tensor (`zeros([2, WIDTH], d)`: the const `WIDTH`), kept through the ops that
    keep the shape."""
    hit = st.memo.get(("dim-values", id(found.dims)))
    if hit is None or hit[0] is not found.dims or not 0 <= index < len(hit[1]):
        return None
    return hit[1][index]


def _dim_of(item: Node, st: State, frame: Frame, depth: int) -> shapes.Dim:
    """A dim written as `x.dims()[i]` (or through a `let` of one): that dim of x's shape."""
    node = strip(item)
    if node is not None and node.type == "identifier":
        found = find_binding(node, st.unit.src, st.unit.root)
        bound = bound_value(node, found, st.unit.src, st.unit.root) if found else None
        node = strip(bound)
    if node is None or node.type != "index_expression" or len(node.named_children) != 2:
        return None
    base, index = node.named_children
    at = st.value(index, frame, depth + 1)
    dims = shape(base, st, frame, depth + 1)
    if at is None or type(at.value) is not int or dims is None:
        return None
    return dims.dim(at.value)


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
    text = unit.text(callee) if callee is not None else ""
    if "<" in text:
        turbofish = tensor_type_args("Tensor" + text[text.index("<") : text.rindex(">") + 1])
    step = f"{owner}::{fn}" if owner else fn
    found: Shape | None = None
    if owner == "Tensor" and fn == "arange" and args:
        found = _arange(args[0], st, frame, depth)
    elif owner == "Tensor" and fn in TENSOR_CONSTRUCTORS and args:
        dims = _dims_arg(args[0], st, frame, depth)
        found = Shape(dims, ()) if dims is not None else None
    elif owner in ("Tensor", "TensorData") and fn in (*TENSOR_FROM, "from") and args:
        found = shape(args[0], st, frame, depth + 1)
    elif owner == "TensorData" and fn == "new" and len(args) >= 2:
        dims = _dims_arg(args[1], st, frame, depth)
        found = Shape(dims, ()) if dims is not None else None
    if found is not None and found.dims is not None:
        st.memo[("made", id(found.dims))] = (found.dims, span_of(call), step)
        return found.then(f"{step}({found.text()}) at {at(call)}")
    ranks = [a for a in turbofish or () if a.isdigit()]
    if found is None and owner == "Tensor" and len(ranks) == 1 and fn in TENSOR_CONSTRUCTORS:
        return shapes.of_rank(int(ranks[0]), (f"{step} of rank {ranks[0]} at {at(call)}",))
    fn_item = calls.callee_fn(call, st)
    if fn_item is not None:
        inner = calls.frame_for(call, fn_item, st, frame, depth)
        result = calls.returned(fn_item, st, inner, depth, State.shape) if inner else None
        if result is not None:
            return result.then(f"returned by {inner.label} at {at(call)}")  # type: ignore[union-attr]
        return None
    if _ops is None:
        return None
    path = st.resolve(callee) if callee is not None else None
    values = [_arg(a, st, frame, depth) for a in args]
    return _ops.function_shape(path or "::".join(segments), values)


def _arg(node: Node, st: State, frame: Frame, depth: int) -> Any:
    """An op's argument as the table reads it: a tensor's Shape, a value, a list of those."""
    node = strip(node) or node
    found = shape(node, st, frame, depth + 1)
    if found is not None:
        return found
    if node.type == "macro_invocation" or node.type == "array_expression":
        tokens = [c for c in node.named_children if c.type in ("token_tree",)]
        items = tokens[0].named_children if tokens else node.named_children
        listed = [shape(i, st, frame, depth + 1) for i in items if i.type == "identifier"]
        if (
            listed
            and all(s is not None for s in listed)
            and len(listed) == len([i for i in items if "comment" not in i.type])
        ):
            return listed
    scalar = st.value(node, frame, depth + 1)
    return scalar.value if scalar is not None else None


def _method(call: Node, parts: tuple[Node, Node, list[Node]], st: State, frame: Frame,
            depth: int) -> Shape | None:  # fmt: skip
    receiver, name_node, args = parts
    name = st.unit.text(name_node)
    fn_item = calls.callee_fn(call, st)
    if fn_item is not None:  # `self.helper(x)`: the crate's own method
        sub = calls.frame_for(call, fn_item, st, frame, depth)
        result = calls.returned(fn_item, st, sub, depth, State.shape) if sub else None
        return result.then(f"returned by {sub.label} at {at(call)}") if result and sub else None
    inner = shape(receiver, st, frame, depth + 1) or shapes.unknown()
    if _ops is None:
        return _kept(call, name, inner, args, st, frame, depth)
    values = [_arg(a, st, frame, depth) for a in args]
    callee = child_by_field(call, "function")
    generic = child_by_field(callee, "type_arguments") if callee is not None else None
    if generic is not None:  # `.unsqueeze::<3>()`: the rank it returns
        ranks = [c for c in generic.named_children if "comment" not in c.type]
        values.append(("rank", _scalar(ranks[0], st, frame, depth) if ranks else None))
    return _ops.method_shape(name, inner, values)


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


# Until burn's ops table (`evaluate.ops`) is here: the few ops the rules read shapes through.
_KEEP = frozenset({"clone", "to_device", "detach", "require_grad", "set_require_grad", "int",
                   "float", "cast", "abs", "neg", "add_scalar", "sub_scalar", "mul_scalar",
                   "clamp", "contiguous", "convert", "into_primitive"})  # fmt: skip


def _kept(call: Node, name: str, inner: Shape, args: list[Node], st: State, frame: Frame,
          depth: int) -> Shape | None:  # fmt: skip
    if name in _KEEP and inner.dims is not None:
        return inner.then(f".{name} keeps the shape")
    if name == "reshape" and args:
        dims = _dims_arg(args[0], st, frame, depth)
        if dims is None:
            return None
        st.memo[("made", id(dims))] = (dims, span_of(call), ".reshape")
        kept = tuple(d if not isinstance(d, int) or d > 0 else None for d in dims)
        return inner.to(kept, f".reshape({shapes.format_dims(kept)}) at {at(call)}")
    if inner.dims is None:
        return None
    if name == "unsqueeze_dim" and len(args) == 1:
        where = _scalar(args[0], st, frame, depth)
        if type(where) is not int or not 0 <= where <= len(inner.dims):
            return None
        return inner.to((*inner.dims[:where], 1, *inner.dims[where:]), f".unsqueeze_dim({where})")
    callee = child_by_field(call, "function")
    generic = child_by_field(callee, "type_arguments") if callee is not None else None
    if name == "unsqueeze" and generic is not None and generic.named_children:
        rank = _scalar(generic.named_children[0], st, frame, depth)
        if type(rank) is not int or rank < len(inner.dims):
            return None
        return inner.to((1,) * (rank - len(inner.dims)) + inner.dims, f".unsqueeze::<{rank}>()")
    return None

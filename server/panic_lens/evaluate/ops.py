"""burn's tensor ops as data: the output shape of a `Tensor` method, a free function, an operator
or a module's `forward`, read from the shipped table `rules/data/burn-<version>.ops.toml` (one
entry per op naming its transfer kind; the kinds live in `op_kinds`, `op_combine` and
`op_modules`). Every answer is a `Shape` whose steps end with the op's own step, or None when
the op is not in the table or its output cannot be told: never a guess.

Arguments are ints, floats, bools, strings (variant names), tuples/lists of them, `Shape`s (the
tensors), `Sym`s (run-time sizes) or None (unknown); a slice range is a `Span` or a mapping of
burn's `Slice` parts (`{"start": 1, "end": None, "step": 1}`, a part left out = unknown).
`out_rank` is the rank the code asks for when burn leaves it to the type (`unsqueeze::<4>()`,
`let y: Tensor<B, 2> = x.flatten(..)`), also accepted as a last argument `("rank", n)`: an
answer of another rank is dropped.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from panic_lens.evaluate import op_combine as oc
from panic_lens.evaluate import op_kinds as ok
from panic_lens.evaluate.op_kinds import Dims, Entry, Kind
from panic_lens.evaluate.op_modules import MODULE_KINDS, module_dims
from panic_lens.evaluate.shapes import Dim, Shape, Span, Sym, format_dim, unknown

TABLE_FILE = (
    Path(__file__).resolve().parent.parent / "rules" / "data" / "burn-0.22.0-pre.2.ops.toml"
)

TENSOR_KINDS: dict[str, Kind] = {
    "same": ok.same,
    "broadcast": oc.broadcast_kind,
    "reduce_all": ok.reduce_all,
    "reduce_dim": ok.reduce_dims,
    "reduce_dims": ok.reduce_dims,
    "resize_dim": ok.resize_dim,
    "halve_dim": ok.halve_dim,
    "flat": ok.flat,
    "argwhere": ok.argwhere,
    "sized": ok.sized,
    "reshape": ok.reshape,
    "swap_dims": ok.swap_dims,
    "permute": ok.permute,
    "movedim": ok.movedim,
    "flatten": ok.flatten,
    "squeeze_all": ok.squeeze_all,
    "squeeze_dims": ok.squeeze_dims,
    "unsqueeze": ok.unsqueeze,
    "unsqueeze_dims": ok.unsqueeze_dims,
    "slice": ok.slice_kind,
    "repeat": oc.repeat,
    "expand": oc.expand,
    "pad": oc.pad,
    "matmul": oc.matmul,
    "gather": oc.gather,
    "select": oc.select,
    "one_hot": oc.one_hot,
    "cat": oc.cat,
    "stack": oc.stack,
}
MULTI_KINDS = frozenset({"chunk", "split", "split_with_sizes", "pair"})
SECTIONS = ("method", "operator", "function", "module")
# burn-tensor/src/tensor/api/numeric.rs: `impl_tensor_scalar_add/sub/mul/div!` (scalar on the left)
SCALAR_LEFT = frozenset({"+", "-", "*", "/"})


class OpsTableError(ValueError):
    """The ops table is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class OpsTable:
    burn: str
    method: Mapping[str, Entry]
    operator: Mapping[str, Entry]
    function: Mapping[str, Entry]
    module: Mapping[str, Entry]

    def size(self) -> int:
        return sum(len(getattr(self, s)) for s in SECTIONS)


def load_table(path: Path = TABLE_FILE) -> OpsTable:
    """Read and check a table: every entry names a kind its section knows and where in burn's
    source it was read."""
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise OpsTableError(f"{path}: {err}") from err
    if not isinstance(data.get("burn"), str) or data.get("format") != 1:
        raise OpsTableError(f'{path}: needs `burn = "<version>"` and `format = 1`')
    sections: dict[str, dict[str, Entry]] = {}
    for section in SECTIONS:
        entries = data.get(section, {})
        if not isinstance(entries, dict):
            raise OpsTableError(f"{path}: [{section}] must be a table")
        known = (
            MODULE_KINDS if section == "module" else {**TENSOR_KINDS, **dict.fromkeys(MULTI_KINDS)}
        )
        for name, entry in entries.items():
            where = f"{path}: [{section}] {name!r}"
            if not isinstance(entry, dict) or entry.get("kind") not in known:
                raise OpsTableError(f"{where}: unknown or missing kind")
            if not isinstance(entry.get("src"), str):
                raise OpsTableError(f"{where}: missing `src` (where in burn it was read)")
            if entry["kind"] == "pair" and entry.get("each") not in entries:
                raise OpsTableError(f"{where}: `each` must name another method")
        sections[section] = entries
    return OpsTable(data["burn"], **sections)


@cache
def table() -> OpsTable:
    return load_table()


def method_shape(
    name: str, receiver: Shape, args: Sequence[object], out_rank: int | None = None
) -> Shape | None:
    """`receiver.name(args..)`."""
    if not isinstance(receiver, Shape):
        return None
    args, out_rank = _rank_arg(args, out_rank)
    return _apply(name, table().method.get(name), receiver, args, out_rank)


def _rank_arg(args: Sequence[object], out_rank: int | None) -> tuple[Sequence[object], int | None]:
    """The rank asked for may also come as a last argument `("rank", n)` (a turbofish
    `::<3>` the caller read); it is not one of the op's arguments."""
    last = args[-1] if args else None
    if isinstance(last, tuple) and len(last) == 2 and last[0] == "rank":
        n = last[1]
        given = n if isinstance(n, int) and not isinstance(n, bool) else None
        return args[:-1], out_rank if out_rank is not None else given
    return args, out_rank


def function_shape(path: str, args: Sequence[object], out_rank: int | None = None) -> Shape | None:
    """A free or associated function by canonical path (`burn::tensor::Tensor::cat`,
    `burn::tensor::activation::relu`); `Tensor::method(x, ..)` is the method on x."""
    args, out_rank = _rank_arg(args, out_rank)
    entry = table().function.get(path)
    name = path.rsplit("::", 1)[-1]
    if entry is None:
        if path.startswith("burn::tensor::Tensor::") and args and isinstance(args[0], Shape):
            return method_shape(name, args[0], args[1:], out_rank)
        return None
    at = entry.get("input")
    if at is None:
        return _apply(name, entry, unknown(), args, out_rank)
    x = args[at] if isinstance(at, int) and 0 <= at < len(args) else None
    return _apply(name, entry, x, args, out_rank) if isinstance(x, Shape) else None


def binary_shape(op: str, lhs: Shape | int | float, rhs: Shape | int | float) -> Shape | None:
    """`lhs op rhs` for the operators `+ - * / %`, or the method forms (`add`, `mul_scalar`).
    A scalar on the left (`2.0 * x`: burn's `impl Mul<Tensor> for f32`) keeps the tensor's
    shape, for the operators burn implements that way."""
    if not isinstance(lhs, Shape):
        scalar = isinstance(lhs, int | float) and not isinstance(lhs, bool)
        if scalar and isinstance(rhs, Shape) and op in SCALAR_LEFT:
            return rhs.then(f"{_arg(lhs)} {op} keeps the shape")
        return None
    entry = table().operator.get(op)
    if entry is not None:  # the step reads `* 2.0 keeps the shape`
        return _apply(f"{op} {_arg(rhs)}", entry, lhs, (rhs,), None)
    return _apply(op, table().method.get(op), lhs, (rhs,), None)


def module_forward_shape(
    module_type_path: str, config: Mapping[str, object], input: Shape, args: int = 1,
    element: int | None = None, method: str = "forward",
) -> Shape | None:  # fmt: skip
    """`module.forward(input, ..)` (`args` arguments) for a burn module built from `config`
    (field name -> value); of a forward that returns a tuple (`tuple = true`: an RNN's output
    and state), the output when asked for its `element` 0. A loss (`kind = "loss"`) names
    what each of its methods gives: `one` (a reduced loss, `Tensor<1>` of one element) or
    `same` (the first input's shape, unreduced)."""
    entry = table().module.get(module_type_path)
    if entry is None or not isinstance(input, Shape):
        return None
    if entry["kind"] == "loss":
        gives = entry.get(method) if element is None else None
        step = f"{module_type_path.rsplit('::', 1)[-1]}.{method}"
        if gives == "one":
            return Shape((1,), (f"{step} -> [1], the reduced loss",))
        return input.then(f"{step} keeps the input's shape") if gives == "same" else None
    if method != "forward" or entry.get("args", 1) != args:
        return None
    if (element is not None) != bool(entry.get("tuple")) or element not in (None, 0):
        return None
    label = module_type_path.rsplit("::", 1)[-1] + ".forward"
    if entry["kind"] == "same":
        return input.then(f"{label} keeps the shape")
    dims = module_dims(entry, config, input)
    return None if dims is None else input.to(dims, f"{label} -> {_text(dims)}")


def module_param_shape(
    module_type_path: str, config: Mapping[str, object], param: str
) -> Shape | None:
    """The shape of a burn module's parameter (`embedding.weight.val()`: `[n_embedding,
    d_model]`) from the config it was built from, as the table's `params` say; None when the
    table does not size it or a field it needs is not known."""
    entry = table().module.get(module_type_path)
    params = entry.get("params") if entry is not None else None
    sizes = params.get(param) if isinstance(params, Mapping) else None
    if entry is None or not isinstance(sizes, list):
        return None
    when = entry.get("params_when")
    for name, wanted in when.items() if isinstance(when, Mapping) else ():
        if config.get(name) != wanted:
            return None
    dims = [config.get(str(f)) for f in sizes]
    if any(type(d) is not int or d < 0 for d in dims):
        return None
    label = module_type_path.rsplit("::", 1)[-1]
    known = tuple(d for d in dims if type(d) is int)
    return Shape(known, (f"{label}.{param}: {_text(known)}",))


def method_outputs(name: str, receiver: Shape, args: Sequence[object]) -> tuple[Shape, ...] | None:
    """The shapes of a method giving several tensors: `chunk`/`split`/`split_with_sizes` (one
    per piece) and the pairs (`var_mean`, `max_dim_with_indices`, `sort_with_indices`...)."""
    entry = table().method.get(name)
    if entry is None or entry["kind"] not in MULTI_KINDS or not isinstance(receiver, Shape):
        return None
    args, _ = _rank_arg(args, None)
    if entry["kind"] == "pair":
        each = method_shape(str(entry["each"]), receiver, args)
        return None if each is None else (each, each)
    parts = oc.pieces(entry, receiver, args)
    if parts is None:
        return None
    step = f"{name}({_args(args)}) -> {len(parts)} pieces"
    return tuple(receiver.to(dims, f"{step}, #{i} {_text(dims)}") for i, dims in enumerate(parts))


def _apply(
    name: str, entry: Entry | None, x: Shape, args: Sequence[object], out_rank: int | None
) -> Shape | None:
    kind = None if entry is None else TENSOR_KINDS.get(str(entry["kind"]))
    if entry is None or kind is None:
        return None
    if entry["kind"] == "same" or oc.scalar_operands(entry, args):
        return x.then(f"{name} keeps the shape")  # even when the rank is unknown
    dims = kind(entry, x, args, out_rank)
    if dims is None or (out_rank is not None and len(dims) != out_rank):
        return None
    if dims == x.dims:
        return x.to(dims, f"{name} keeps the shape")
    return x.to(dims, f"{name}({_args(args)}) -> {_text(dims)}")


def _text(dims: Dims) -> str:
    return "[" + ", ".join(format_dim(d) for d in dims) + "]"


def _args(args: Sequence[object]) -> str:
    return ", ".join(_arg(a) for a in args)


def _arg(a: object) -> str:
    if isinstance(a, Shape):
        return a.text()
    if isinstance(a, Mapping):
        a = ok.as_span(a)
    if isinstance(a, Span):
        start = "?" if a.start is None else ("" if a.start == 0 else str(a.start))
        end = "" if a.open_end else ("?" if a.end is None else str(a.end))
        return f"{start}..{end}" + ("" if a.step == 1 else f";{'?' if a.step is None else a.step}")
    if isinstance(a, tuple | list):
        return "[" + ", ".join(_arg(v) for v in a) + "]"
    if a is None:
        return "?"
    if isinstance(a, bool):
        return str(a).lower()
    return str(a) if isinstance(a, int | float | str | Sym) else "?"


__all__ = (
    "Dim",
    "OpsTable",
    "OpsTableError",
    "binary_shape",
    "function_shape",
    "load_table",
    "method_outputs",
    "method_shape",
    "module_forward_shape",
    "module_param_shape",
    "table",
)

"""The transfer kinds of burn's ops table that combine tensors, size dims from argument lists
or give several tensors: broadcast, matmul, gather, select, one_hot, repeat, expand, pad, cat,
stack, and the splits (chunk, split, split_with_sizes). Same contract as `op_kinds`: None when
the output cannot be told.
"""

from __future__ import annotations

from collections.abc import Sequence

from panic_lens.evaluate.op_kinds import (
    Dims,
    Entry,
    arg,
    as_int,
    as_size,
    dim_of,
    unknown_dims,
)
from panic_lens.evaluate.shapes import Dim, Many, Shape, broadcast, dims_equal, norm_dim


def broadcast_kind(e: Entry, x: Shape, args: Sequence[object], r: int | None) -> Dims | None:
    """Element-wise with tensors: burn's broadcast; a scalar operand keeps the shape."""
    others = e.get("other")
    dims = x.dims
    for at in others if isinstance(others, list) else [others]:
        v = args[at] if isinstance(at, int) and 0 <= at < len(args) else None
        if isinstance(v, int | float) and not isinstance(v, bool):
            continue
        if not isinstance(v, Shape) or v.dims is None or dims is None:
            return None
        dims = broadcast(dims, v.dims)
    return dims


def scalar_operands(e: Entry, args: Sequence[object]) -> bool:
    """A broadcast entry whose operands are all scalars (`x * 2.0`): the shape is kept."""
    others = e.get("other")
    if e.get("kind") != "broadcast":
        return False
    ats = others if isinstance(others, list) else [others]
    values = [args[a] if isinstance(a, int) and 0 <= a < len(args) else None for a in ats]
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def matmul(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`[..., m, k] @ [..., k, n] -> [..., m, n]`, the batch dims broadcast (burn-ndarray's
    matmul `output_shape`; rank >= 2, the same rank on both sides)."""
    y = arg(e, "other", args)
    if x.dims is None or not isinstance(y, Shape) or y.dims is None:
        return None
    if len(x.dims) != len(y.dims) or len(x.dims) < 2:
        return None
    batch = broadcast(x.dims[:-2], y.dims[:-2])
    if batch is None or dims_equal(x.dims[-1], y.dims[-2]) is False:
        return None  # burn panics: the batch dims or the inner dims do not agree
    return (*batch, x.dims[-2], y.dims[-1])


def gather(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`gather(dim, indices)`: the output has the indices' shape."""
    indices = arg(e, "indices", args)
    return indices.dims if isinstance(indices, Shape) else None


def select(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`select(dim, indices)`: the dim becomes the (rank-1) indices' length."""
    if x.dims is None:
        return None
    dim = dim_of(e, "dim", args, len(x.dims))
    indices = arg(e, "indices", args)
    if dim is None:
        return (None,) * len(x.dims)
    n = (
        indices.dims[0]
        if isinstance(indices, Shape) and indices.dims and len(indices.dims) == 1
        else None
    )
    return tuple(n if i == dim else d for i, d in enumerate(x.dims))


def one_hot(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`one_hot(n)`: a last dim of n; `one_hot_fill(n, on, off, axis)`: inserted at `axis`."""
    if x.dims is None:
        return None
    rank = len(x.dims) + 1
    at = rank - 1 if "axis" not in e else as_int(arg(e, "axis", args))
    at = None if at is None else norm_dim(at, rank, True)
    if at is None:
        return None
    return (*x.dims[:at], as_size(arg(e, "classes", args)), *x.dims[at:])


def repeat(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    if x.dims is None:
        return None
    if "sizes" in e:
        raw = arg(e, "sizes", args)
        if not isinstance(raw, tuple | list):
            return None
        # burn skips sizes of 1, so extra 1s past the rank are harmless; another panics
        if any(as_int(t) != 1 for t in raw[len(x.dims) :]):
            return None
        times = [as_int(t) for t in raw[: len(x.dims)]] + [1] * (len(x.dims) - len(raw))
    else:
        dim = dim_of(e, "dim", args, len(x.dims))
        if dim is None:
            return unknown_dims(e, args, x)
        times = [1] * len(x.dims)
        times[dim] = as_int(arg(e, "times", args))
    return tuple(
        d if t == 1 else 0 if t == 0 else (d * t if isinstance(d, int) and t is not None else None)
        for d, t in zip(x.dims, times, strict=True)
    )


def expand(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`expand(shape)`: right-aligned; -1 keeps the source dim."""
    raw = arg(e, "shape", args)
    if isinstance(raw, Shape):
        return raw.dims
    if not isinstance(raw, tuple | list) or x.dims is None or len(raw) < len(x.dims):
        return None
    lead = len(raw) - len(x.dims)
    out = [
        x.dims[i - lead] if as_int(v) == -1 and i >= lead else as_size(v) for i, v in enumerate(raw)
    ]
    if any(as_int(v) == -1 for v in raw[:lead]):
        return None  # burn panics: -1 for a dim the tensor does not have
    return tuple(out)


def pad(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`pad((left, right, top, bottom), mode)` pads the last two dims; `[(before, after); N]`
    pads the last N."""
    raw = arg(e, "padding", args)
    if x.dims is None or not isinstance(raw, tuple | list):
        return None
    if len(raw) == 4 and all(as_int(v) is not None for v in raw):
        pairs: list[object] = [(raw[2], raw[3]), (raw[0], raw[1])]
    else:
        pairs = list(raw)
    if len(pairs) > len(x.dims) or len(x.dims) < 2:
        return None
    out = list(x.dims)
    for i, pair in enumerate(pairs, start=len(x.dims) - len(pairs)):
        both = [as_int(v) for v in pair] if isinstance(pair, tuple | list) else [None]
        d = out[i]
        total = sum(v for v in both if v is not None)
        known = len(both) == 2 and None not in both
        out[i] = (
            d + total if isinstance(d, int) and known else (d if known and total == 0 else None)
        )
    return tuple(out)


def _tensors(e: Entry, args: Sequence[object]) -> list[Shape] | None:
    """The shapes of the `tensors` argument; a list of unknown length (`Many`) gives its one
    item shape twice: the dims all items share are known, the count and the sum are not."""
    raw = arg(e, "tensors", args)
    if isinstance(raw, Many):
        return [raw.item, raw.item] if raw.item.dims is not None else None
    if not isinstance(raw, tuple | list) or not raw:
        return None
    if not all(isinstance(t, Shape) and t.dims is not None for t in raw):
        return None
    shapes = [t for t in raw if isinstance(t, Shape)]
    return shapes if len({t.rank for t in shapes}) == 1 else None


def _agree(column: Sequence[Dim]) -> Dim | bool:
    """One dim all tensors must share: the first known one (False when two surely differ)."""
    known: Dim = None
    for d in column:
        if d is None:
            continue
        if known is None:
            known = d
        elif isinstance(known, int) and isinstance(d, int) and known != d:
            return False
        elif known != d and not isinstance(known, int):
            known = d if isinstance(d, int) else known
    return known


def cat(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`Tensor::cat(tensors, dim)`: the dim is the sum, the others are shared."""
    shapes = _tensors(e, args)
    if shapes is None:
        return None
    rank = shapes[0].rank or 0
    dim = dim_of(e, "dim", args, rank)
    if dim is None:
        return None
    counted = not isinstance(arg(e, "tensors", args), Many)  # a Many's length is not known
    out: list[Dim] = []
    for i in range(rank):
        column = [t.dims[i] for t in shapes if t.dims is not None]
        if i == dim:
            total = sum(d for d in column if isinstance(d, int))
            out.append(total if counted and all(isinstance(d, int) for d in column) else None)
            continue
        shared = _agree(column)
        if shared is False:
            return None  # burn panics
        out.append(shared if not isinstance(shared, bool) else None)
    return tuple(out)


def stack(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`Tensor::stack(tensors, dim)`: a new dim of the tensors' count at `dim` (of D + 1)."""
    shapes = _tensors(e, args)
    raw = arg(e, "tensors", args)
    if shapes is None or not isinstance(raw, tuple | list | Many):
        return None
    rank = (shapes[0].rank or 0) + 1
    dim = dim_of(e, "dim", args, rank)
    if dim is None:
        return None
    inner = []
    for i in range(rank - 1):
        shared = _agree([t.dims[i] for t in shapes if t.dims is not None])
        if shared is False:
            return None
        inner.append(shared if not isinstance(shared, bool) else None)
    # stack::<D2> unsqueezes each tensor to D2 (trailing 1s past D + 1), then cats
    extra = (1,) * (out_rank - rank) if out_rank is not None and out_rank > rank else ()
    count = None if isinstance(raw, Many) else len(raw)
    return (*inner[:dim], count, *inner[dim:], *extra)


# More pieces than this are not listed (a `split(1, 0)` of a long dim): the answer stays bounded.
MAX_PIECES = 1024


def pieces(e: Entry, x: Shape, args: Sequence[object]) -> list[Dims] | None:
    """The shapes of `chunk`, `split` and `split_with_sizes`, one per piece, when the dim's
    size (and so the number of pieces) is known."""
    if x.dims is None:
        return None
    dim = dim_of(e, "dim", args, len(x.dims))
    size = None if dim is None else x.dims[dim]
    if dim is None or not isinstance(size, int):
        return None
    lengths = _lengths(str(e.get("kind")), e, args, size)
    if lengths is None or len(lengths) > MAX_PIECES:
        return None
    return [tuple(n if i == dim else d for i, d in enumerate(x.dims)) for n in lengths]


def _lengths(kind: str, e: Entry, args: Sequence[object], size: int) -> list[int] | None:
    if kind == "split_with_sizes":
        raw = arg(e, "sizes", args)
        sizes = [as_int(v) for v in raw] if isinstance(raw, tuple | list) else None
        if sizes is None or None in sizes or sum(s for s in sizes if s) != size:
            return None  # burn panics when the sizes do not add up
        return [s for s in sizes if s]
    if kind == "split":
        step = as_int(arg(e, "size", args))
        if step is None or step <= 0 or -(-size // step) > MAX_PIECES:
            return None
        return [min(step, size - start) for start in range(0, size, step)]
    chunks = as_int(arg(e, "chunks", args))
    if chunks is None or chunks <= 0 or min(chunks, size) > MAX_PIECES:
        return None
    if size < chunks:  # burn: one piece of 1 per element
        return [1] * size
    if size % chunks == 0:
        return [size // chunks] * chunks
    each = size // chunks + 1  # burn's chunk: equal pieces, then `size % each`
    lengths = [each] * (chunks - 1) + [size % each]
    # each piece is a narrow; one of length 0 or past the end makes burn panic
    if 0 in lengths or sum(lengths) > size:
        return None
    return lengths

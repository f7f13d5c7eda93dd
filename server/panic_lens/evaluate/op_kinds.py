"""The transfer kinds of burn's tensor ops table: how one kind of op (`reduce_dim`, `reshape`,
`cat`...) maps its input shape and arguments to its output dims. `ops.py` reads the table and
calls these; an entry's keys (`dim = 0`: the argument at index 0 is the dim) say where each
kind finds its arguments. Every kind answers None when the output cannot be told, and never
checks what makes burn panic (the rules do).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from panic_lens.evaluate.shapes import (
    Dim,
    Shape,
    Span,
    Sym,
    dims_equal,
    is_int,
    norm_dim,
    product,
)

Entry = Mapping[str, object]
Dims = tuple[Dim, ...]
Kind = Callable[[Entry, Shape, Sequence[object], "int | None"], "Dims | None"]


def arg(e: Entry, key: str, args: Sequence[object]) -> object:
    """The argument an entry's key points at (None when absent or unknown)."""
    at = e.get(key)
    return args[at] if isinstance(at, int) and 0 <= at < len(args) else None


def as_int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def as_size(v: object) -> Dim:
    """A size argument: a known int >= 0 or a run-time `Sym`; else unknown."""
    if isinstance(v, Sym):
        return v
    n = as_int(v)
    return n if n is not None and n >= 0 else None


def as_ints(v: object) -> list[int] | None:
    """A list of ints (`&[1, 3]`, `[0, 2, 1]`), None when it or any element is unknown."""
    if not isinstance(v, tuple | list):
        return None
    out = [as_int(x) for x in v]
    return None if any(x is None for x in out) else [x for x in out if x is not None]


def dim_of(e: Entry, key: str, args: Sequence[object], rank: int) -> int | None:
    """The dim index an entry's key names, normalised (negative ones when the entry allows)."""
    n = as_int(arg(e, key, args))
    return None if n is None else norm_dim(n, rank, bool(e.get("negative")))


def _fixed_dims(e: Entry, key: str, rank: int) -> list[int] | None:
    """Dims written in the entry itself (`at = -1`, `at = [-2, -1]`), normalised."""
    raw = e.get(key)
    items = raw if isinstance(raw, list) else [raw]
    out = [norm_dim(d, rank) if isinstance(d, int) else None for d in items]
    return None if any(d is None for d in out) else [d for d in out if d is not None]


def _dims_of(e: Entry, args: Sequence[object], rank: int) -> list[int] | None:
    """The dims an op names: `dims` (a list arg), `dim` (one arg) or `at` (fixed in the entry);
    None when one is unknown or out of range."""
    if "at" in e:
        return _fixed_dims(e, "at", rank)
    if "dims" in e and isinstance(e["dims"], int):
        raw = as_ints(arg(e, "dims", args))
        if raw is None:
            return None
        out = [norm_dim(d, rank, bool(e.get("negative"))) for d in raw]
        return None if any(d is None for d in out) else [d for d in out if d is not None]
    one = dim_of(e, "dim", args, rank)
    return None if one is None else [one]


def unknown_dims(e: Entry, args: Sequence[object], x: Shape) -> Dims | None:
    """When the dims an op names cannot be read: all dims unknown at the same rank if an
    argument is unknown, no shape if a known one is out of range (burn panics)."""
    if x.dims is None:
        return None
    key = "dims" if "dims" in e and isinstance(e["dims"], int) else "dim"
    raw = arg(e, key, args)
    known = as_ints(raw) if key == "dims" else as_int(raw)
    return None if known is not None or "at" in e else (None,) * len(x.dims)


def sized(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """A tensor made to the sizes its arguments give (`generate_sinusoids(length, d_model, ..)`
    is `[length, d_model]`), one dim per argument `sizes` names; none when the size `even`
    names is a known odd number (burn asserts it is even)."""
    at = e.get("sizes")
    if not isinstance(at, list):
        return None
    even = as_int(arg(e, "even", args))
    if even is not None and even % 2:
        return None
    return tuple(as_size(args[i]) if 0 <= i < len(args) else None for i in at)


def same(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    return x.dims


def reduce_all(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    return (1,)


def reduce_dims(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """The named dims become 1, the rank is kept."""
    if x.dims is None:
        return None
    dims = _dims_of(e, args, len(x.dims))
    if dims is None:
        return unknown_dims(e, args, x)
    return tuple(1 if i in dims else d for i, d in enumerate(x.dims))


def resize_dim(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """One dim becomes the size argument (`topk(k, dim)`, `narrow(dim, start, length)`)."""
    if x.dims is None:
        return None
    dims = _dims_of(e, args, len(x.dims))
    if dims is None:
        return unknown_dims(e, args, x)
    size = as_size(arg(e, "size", args))
    return tuple(size if i == dims[0] else d for i, d in enumerate(x.dims))


def halve_dim(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`glu(x, dim)`: the dim is halved (burn panics on an odd size)."""
    if x.dims is None:
        return None
    dims = _dims_of(e, args, len(x.dims))
    if dims is None:
        return unknown_dims(e, args, x)
    d = x.dims[dims[0]]
    half = d // 2 if isinstance(d, int) and d % 2 == 0 else None
    if isinstance(d, int) and d % 2:
        return None
    return tuple(half if i == dims[0] else v for i, v in enumerate(x.dims))


def flat(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`mask_select`: a rank-1 tensor whose length depends on the data."""
    return (None,)


def argwhere(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`argwhere`: `[count, rank]`, the count depending on the data."""
    return None if x.rank is None else (None, x.rank)


def reshape(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """burn's reshape: 0 keeps the source dim at that index, one -1 takes what is left."""
    raw = arg(e, "shape", args)
    if isinstance(raw, Shape):
        return _same_numel(x, raw.dims)
    if not isinstance(raw, tuple | list):
        return None
    out: list[Dim] = []
    infer = None
    for i, v in enumerate(raw):
        n = as_int(v)
        if n == 0:
            out.append(x.dim(i) if x.rank is not None and i < x.rank else None)
        elif n == -1:
            if infer is not None:
                return None  # burn panics on two -1
            infer = i
            out.append(None)
        elif n is not None and n < -1:
            return None  # burn panics on other negative sizes
        else:
            out.append(as_size(v))
    if infer is not None:
        out[infer] = _remaining(x, [d for i, d in enumerate(out) if i != infer])
    return _same_numel(x, tuple(out))


def _same_numel(x: Shape, dims: Dims | None) -> Dims | None:
    """The target dims, unless both element counts are known and differ (burn panics)."""
    known = x.numel()
    wanted = None if dims is None else product(dims)
    return None if known is not None and wanted is not None and known != wanted else dims


def _remaining(x: Shape, others: Sequence[Dim]) -> Dim:
    """numel(x) / product(others), cancelling run-time dims that appear on both sides."""
    if x.dims is None or any(d is None for d in x.dims) or any(d is None for d in others):
        return None
    left = [d for d in x.dims if isinstance(d, Sym)]
    for d in others:
        if isinstance(d, Sym):
            if d not in left:
                return None
            left.remove(d)
    num = product(d for d in x.dims if is_int(d))
    den = product(d for d in others if is_int(d))
    if num is None or den is None or den == 0 or num % den:
        return None
    ratio = num // den
    if not left:
        return ratio
    return left[0] if len(left) == 1 and ratio == 1 else None


def swap_dims(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    if x.dims is None:
        return None
    rank = len(x.dims)
    if "at" in e:
        pair = _fixed_dims(e, "at", rank)
    else:
        keys = e.get("dims")
        ats = keys if isinstance(keys, list) else []
        raw = [as_int(args[a]) if isinstance(a, int) and a < len(args) else None for a in ats]
        if len(raw) != 2 or None in raw:
            return (None,) * rank  # a dim not known: the rank is kept
        fixed = [norm_dim(a, rank) for a in raw if a is not None]
        pair = None if None in fixed else [a for a in fixed if a is not None]
    if pair is None or len(pair) != 2:
        return None  # burn panics on a dim out of range
    a, b = pair
    out = list(x.dims)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


def permute(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    if x.dims is None:
        return None
    rank = len(x.dims)
    axes = as_ints(arg(e, "axes", args))
    if axes is None or len(axes) != rank:
        return (None,) * rank
    fixed = [norm_dim(a, rank) for a in axes]
    if any(a is None for a in fixed) or len(set(fixed)) != rank:
        return None  # burn panics on a bad permutation
    return tuple(x.dims[a] for a in fixed if a is not None)


def movedim(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """burn's movedim: moved dims go to their destinations, the rest keep their order."""
    if x.dims is None:
        return None
    rank = len(x.dims)
    src, dst = (_dim_list(arg(e, k, args), rank) for k in ("src_dims", "dst_dims"))
    if src is None or dst is None or len(src) != len(dst):
        return None
    at: dict[int, int] = dict(zip(dst, src, strict=True))
    rest = iter(i for i in range(rank) if i not in src)
    order = [at[i] if i in at else next(rest, None) for i in range(rank)]
    return None if None in order else tuple(x.dims[i] for i in order if i is not None)


def _dim_list(v: object, rank: int) -> list[int] | None:
    items = as_ints(v) if isinstance(v, tuple | list) else [as_int(v)]
    if items is None or None in items:
        return None
    out = [norm_dim(d, rank) for d in items if d is not None]
    return None if None in out else [d for d in out if d is not None]


def flatten(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    if x.dims is None:
        return None
    start, end = dim_of(e, "start", args, len(x.dims)), dim_of(e, "end", args, len(x.dims))
    if start is None or end is None or start > end:
        return None
    merged = x.dims[start : end + 1]
    one: Dim = merged[0] if len(merged) == 1 else product(merged)
    return (*x.dims[:start], one, *x.dims[end + 1 :])


def squeeze_all(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`squeeze()`: every dim of size 1 goes; told only when every dim is known."""
    known = x.known_dims()
    out = None if known is None else tuple(d for d in known if d != 1)
    return out or None  # burn panics when nothing is left


def squeeze_dims(e: Entry, x: Shape, args: Sequence[object], r: int | None) -> Dims | None:
    """The named dims go (burn panics when one is not 1); `&[]` squeezes every 1."""
    if x.dims is None:
        return None
    source = reduce_dims(e, x, args, r) if e.get("reduce") else x.dims
    if source is None:
        return None
    if "dims" in e and as_ints(arg(e, "dims", args)) == []:
        return squeeze_all(e, Shape(source), args, r)
    dims = _dims_of(e, args, len(source))
    if dims is None:
        return None
    if any(dims_equal(source[d], 1) is False for d in dims):
        return None
    return tuple(d for i, d in enumerate(source) if i not in dims) or None


def unsqueeze(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`unsqueeze::<D2>()`: leading 1s up to the rank asked for."""
    if x.dims is None or out_rank is None or out_rank < len(x.dims):
        return None
    return (1,) * (out_rank - len(x.dims)) + x.dims


def unsqueeze_dims(e: Entry, x: Shape, args: Sequence[object], r: int | None) -> Dims | None:
    """Insert 1s at the given positions of the output (burn's unsqueeze_dim(s))."""
    if x.dims is None:
        return None
    raw = as_ints(arg(e, "dims", args)) if "dims" in e else [as_int(arg(e, "dim", args))]
    if raw is None or None in raw:
        return None
    axes = [d for d in raw if d is not None]
    rank = len(x.dims) + len(axes)
    if "dim" in e:  # unsqueeze_dim: AsIndex against D + 1; a larger D2 adds trailing 1s
        at = norm_dim(axes[0], rank, True)
        extra = (1,) * (r - rank) if r is not None and r > rank else ()
        return None if at is None else (*x.dims[:at], 1, *x.dims[at:], *extra)
    offset, places = rank, []
    for d in axes:  # burn: each negative axis counts from one slot further left
        if d < 0:
            offset -= 1
            d = d + offset + 1
        places.append(d)
    places.sort()
    for i in range(1, len(places)):
        places[i] = max(places[i], places[i - 1] + 1)
    if any(p < 0 or p >= rank for p in places):
        return None
    rest = iter(x.dims)
    return tuple(1 if i in places else next(rest) for i in range(rank))


def slice_kind(e: Entry, x: Shape, args: Sequence[object], out_rank: int | None) -> Dims | None:
    """`slice(ranges)`, `slice_dim(dim, range)`, `select_dim(dim, index)`."""
    if x.dims is None:
        return None
    raw = arg(e, "slices", args)
    dim = dim_of(e, "dim", args, len(x.dims))
    if "dim" in e:
        if dim is None:
            return None
        spans: list[object] = [Span(0, None, 1, True)] * len(x.dims)
        spans[dim] = raw
    else:
        spans = list(raw) if isinstance(raw, tuple | list) else [raw]
        if len(spans) > len(x.dims):
            return None
        spans += [Span(0, None, 1, True)] * (len(x.dims) - len(spans))
    out = tuple(_span_size(s, d) for s, d in zip(spans, x.dims, strict=True))
    if e.get("squeeze") and dim is not None:
        if dims_equal(out[dim], 1) is False:
            return None  # burn's squeeze_dim panics: the index left more or less than one
        return out[:dim] + out[dim + 1 :]
    return out


def _span_size(s: object, size: Dim) -> Dim:
    span = as_span(s)
    return None if span is None else span.output_size(size)


def as_span(s: object) -> Span | None:
    """A slice argument: a `Span`, an index (`s![2]`), or a mapping with the known parts of
    burn's `Slice` (`{"start": 1, "end": None, "step": 1}`: `end` None = to the end, a part
    left out = unknown)."""
    if isinstance(s, Span):
        return s
    n = as_int(s)
    if n is not None:
        return Span.index(n)
    if not isinstance(s, Mapping):
        return None
    end = s.get("end")
    return Span(
        as_int(s.get("start")),
        as_int(end),
        as_int(s.get("step")),
        open_end="end" in s and end is None,
    )

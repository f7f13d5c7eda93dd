"""The shape model: a tensor's shape as a tuple of dims, each a known int, a named run-time value
(`Sym`) or unknown, with the rank itself possibly unknown, and the steps that explain it.

Comparisons are three-valued (True / False / None = cannot tell): two `Sym`s with the same key are
the same run-time value (a dim copied through ops keeps its identity); anything else unknown
compares to nothing. Broadcasting follows burn 0.22 (`TensorCheck::binary_ops_ew_shape`): both
operands have the same rank, and each dim pair is equal or one of them is 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sym:
    """A dim known only at run time, with an identity: same key, same value
    (`Sym("param:x#0", "x.dims[0]")`). The label is how it reads; it does not take part in
    equality."""

    key: str
    label: str = field(compare=False)

    def __str__(self) -> str:
        return self.label


Dim = int | Sym | None  # None: unknown and related to nothing


@dataclass(frozen=True)
class Shape:
    """A tensor's shape: `dims` None when even the rank is unknown; `steps` explain how it was
    reached, one step a line."""

    dims: tuple[Dim, ...] | None
    steps: tuple[str, ...] = ()

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    def dim(self, index: int) -> Dim:
        """The dim at `index` (negative counts from the end); None when out of range or unknown."""
        at = norm_dim(index, self.rank)
        return None if at is None or self.dims is None else self.dims[at]

    def numel(self) -> int | None:
        """The element count when every dim is a known int."""
        known = self.known_dims()
        if known is None:
            return None
        total = 1
        for d in known:
            total *= d
        return total

    def known_dims(self) -> tuple[int, ...] | None:
        """All dims as ints, or None when any (or the rank) is unknown."""
        if self.dims is None or not all(is_int(d) for d in self.dims):
            return None
        return tuple(d for d in self.dims if isinstance(d, int))

    def then(self, step: str) -> Shape:
        """The same shape with one more explanation step."""
        return Shape(self.dims, (*self.steps, step))

    def to(self, dims: Iterable[Dim] | None, step: str) -> Shape:
        """A new shape reached from this one by `step` (the steps so far are kept)."""
        return Shape(None if dims is None else tuple(dims), (*self.steps, step))

    def text(self) -> str:
        """How the shape reads: `[x.dims[0], 3, ?]`, `[?; rank ?]` for an unknown rank."""
        return "[?; rank ?]" if self.dims is None else format_dims(self.dims)


@dataclass(frozen=True)
class Many:
    """A list of tensors of unknown length whose every item has `item`'s shape (`items.iter()
    .map(|i| Tensor::from_data(..)).collect::<Vec<_>>()`), as an op's argument."""

    item: Shape


@dataclass(frozen=True)
class Span:
    """One slice argument as burn's `Slice` holds it: Rust's `a..b`, `a..`, `..b`, `..`,
    `s![a..b;step]` (build `a..=b` with `inclusive`, a lone index with `index`). `start`/`end`/
    `step` None = unknown; `open_end` = no end written (`a..`)."""

    start: int | None = 0
    end: int | None = None
    step: int | None = 1
    open_end: bool = False

    @staticmethod
    def index(i: int) -> Span:
        """`s![i]`: burn's `Slice::index` keeps that one element (end -1 + 1 means open)."""
        return Span(i, None, 1, True) if i == -1 else Span(i, i + 1)

    @staticmethod
    def inclusive(start: int | None, end: int | None, step: int | None = 1) -> Span:
        """`a..=b`, as burn's `handle_signed_inclusive_end` reads it."""
        if end == -1:
            return Span(start, None, step, True)
        return Span(start, None if end is None else end + 1, step)

    def output_size(self, size: Dim) -> Dim:
        """The dim this slice leaves of a dim of `size` (burn's `Slice::output_size`, which
        clamps the range to the dim); a full `..` keeps even a run-time dim."""
        if self.start == 0 and self.open_end and self.step in (1, -1):
            return size
        if not is_int(size) or self.start is None or self.step is None or self.step == 0:
            return None
        if not self.open_end and self.end is None:
            return None
        assert isinstance(size, int)
        start = _signed_index(self.start, size)
        end = size if self.open_end or self.end is None else _signed_index(self.end, size)
        if start >= end:
            return 0
        return -(-(end - start) // abs(self.step))


def _signed_index(index: int, size: int) -> int:
    return max(size + index, 0) if index < 0 else min(index, size)


def unknown(steps: Sequence[str] = ()) -> Shape:
    """A shape of which nothing is known, not even the rank."""
    return Shape(None, tuple(steps))


def of_rank(rank: int, steps: Sequence[str] = ()) -> Shape:
    """A shape of known rank whose dims are all unknown (a `Tensor<B, 3>` parameter)."""
    return Shape((None,) * rank, tuple(steps))


def is_int(d: object) -> bool:
    """A known int dim (bools are not dims)."""
    return isinstance(d, int) and not isinstance(d, bool)


def format_dim(d: Dim) -> str:
    return "?" if d is None else str(d)


def format_dims(dims: Sequence[Dim]) -> str:
    return "[" + ", ".join(format_dim(d) for d in dims) + "]"


def dims_equal(a: Dim, b: Dim) -> bool | None:
    """Whether two dims hold the same value: True/False when that is known, else None."""
    if is_int(a) and is_int(b):
        return a == b
    if isinstance(a, Sym) and isinstance(b, Sym) and a.key == b.key:
        return True
    return None


def shapes_equal(a: Shape, b: Shape) -> bool | None:
    """Whether two shapes are equal, three-valued (ranks differ -> False)."""
    if a.dims is None or b.dims is None:
        return None
    if len(a.dims) != len(b.dims):
        return False
    verdict: bool | None = True
    for x, y in zip(a.dims, b.dims, strict=True):
        same = dims_equal(x, y)
        if same is False:
            return False
        if same is None:
            verdict = None
    return verdict


def norm_dim(dim: int, rank: int | None, negative: bool = True) -> int | None:
    """A dim index in `0..rank`, negative ones counted from the end when `negative`
    (burn's `AsIndex` adds the rank); None when out of range or the rank is unknown."""
    if rank is None or isinstance(dim, bool):
        return None
    at = dim + rank if negative and dim < 0 else dim
    return at if 0 <= at < rank else None


def broadcast_dim(a: Dim, b: Dim) -> tuple[bool, Dim]:
    """One dim pair of a broadcast: (False, None) when they surely mismatch (burn panics), else
    (True, the output dim). A known dim k > 1 against an unknown one gives k: the only runs that
    do not panic are those where the unknown is 1 or k."""
    if dims_equal(a, b):
        return True, a
    if is_int(a) and is_int(b):
        if a == 1:
            return True, b
        if b == 1:
            return True, a
        return False, None
    for one, other in ((a, b), (b, a)):
        if one == 1:
            return True, other
        if is_int(one):
            return True, one
    return True, None


def broadcast(a: Sequence[Dim], b: Sequence[Dim]) -> tuple[Dim, ...] | None:
    """burn's element-wise broadcast of two same-rank shapes; None when the ranks differ or a
    dim pair surely mismatches (burn panics there; the rules say so, not this model)."""
    if len(a) != len(b):
        return None
    out: list[Dim] = []
    for x, y in zip(a, b, strict=True):
        ok, d = broadcast_dim(x, y)
        if not ok:
            return None
        out.append(d)
    return tuple(out)


def product(dims: Iterable[Dim]) -> int | None:
    """The product of dims when all are known ints."""
    total = 1
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            return None
        total *= d
    return total

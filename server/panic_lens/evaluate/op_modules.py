"""The transfer kinds of burn's ops table for module forwards (`[module]` entries): the output
shape of `module.forward(input)` from the module's config (Linear, Embedding, Conv*d,
ConvTranspose*d, pools, Interpolate*d, GLU). A config maps field names (as in the configs index)
to values; a field that is missing or None is unknown. Formulas are burn's (burn-backend
`calculate_conv_output_size`, `calculate_pool_output_size`, `calculate_conv_transpose_output_size`,
burn-nn `calculate_same_padding`, `Interpolate*d::calculate_output_size`).

Padding values: a variant name (`"Valid"`, `"Same"`, or with its enum `"PaddingConfig2d::Same"`),
or `("Explicit", a, b, ..)` (the numbers also accepted as one nested tuple); ConvTranspose's
padding is plain ints. An `Option` field (Interpolate's `output_size`/`scale_factor`) holds the
string `"None"` for Rust's `None` and the value itself for `Some(value)`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping, Sequence

from panic_lens.evaluate.op_kinds import Dims, Entry, as_int
from panic_lens.evaluate.shapes import Dim, Shape, Sym, is_int, norm_dim

Config = Mapping[str, object]
ModuleKind = Callable[[Entry, Config, Shape], "Dims | None"]


def field(config: Config, spec: object) -> object:
    """A config field by name, `name.i` taking element i of an array field."""
    if not isinstance(spec, str):
        return None
    name, _, index = spec.partition(".")
    value = config.get(name)
    if not index:
        return value
    return (
        value[int(index)] if isinstance(value, tuple | list) and len(value) > int(index) else None
    )


def per_dim(value: object, n: int) -> list[int] | None:
    """An int (a 1d module's field) or an array of n ints, as a list of n ints."""
    if n == 1 and as_int(value) is not None:
        return [value]  # type: ignore[list-item]
    if isinstance(value, tuple | list) and len(value) == n:
        out = [as_int(v) for v in value]
        return None if None in out else [v for v in out if v is not None]
    return None


def same(e: Entry, config: Config, x: Shape) -> Dims | None:
    return x.dims


def halve_dim(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`GLU::new(dim)`: the dim is halved."""
    dim = as_int(field(config, e.get("dim_field")))
    at = None if dim is None or x.rank is None else norm_dim(dim, x.rank, True)
    if x.dims is None or at is None:
        return None
    d = x.dims[at]
    if isinstance(d, int) and d % 2:
        return None
    return tuple(
        (d // 2 if isinstance(d, int) else None) if i == at else v for i, v in enumerate(x.dims)
    )


def linear(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`[..., d_input] -> [..., d_output]`."""
    if x.dims is None or not x.dims:
        return None
    return (*x.dims[:-1], _size(field(config, e.get("out"))))


def embedding(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`[batch, seq] -> [batch, seq, d_model]`."""
    if x.dims is None or len(x.dims) != 2:
        return None
    return (*x.dims, _size(field(config, e.get("out"))))


def rnn(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`[batch, seq, d_input] -> [batch, seq, times * d_hidden]` (Gru, Lstm; `times` 2 for
    the bidirectional ones, whose two directions are joined on the last dim)."""
    if x.dims is None or len(x.dims) != 3:
        return None
    hidden = _size(field(config, e.get("out")))
    times = as_int(e.get("times")) or 1
    return (*x.dims[:-1], hidden * times if isinstance(hidden, int) else None)


def _size(v: object) -> Dim:
    n = as_int(v)
    return v if isinstance(v, Sym) else (n if n is not None and n >= 0 else None)


def _padding(value: object, n: int) -> str | list[tuple[int, int]] | None:
    """ "Valid", "Same", or explicit (start, end) pairs per spatial dim, from a padding value."""
    if isinstance(value, str):
        name = value.rsplit("::", 1)[-1]
        return name if name in ("Valid", "Same") else None
    if not isinstance(value, tuple | list) or not value or value[0] != "Explicit":
        return None
    nums = list(value[1:])
    if len(nums) == 1 and isinstance(nums[0], tuple | list):
        nums = list(nums[0])
    ints = [as_int(v) for v in nums]
    if None in ints:
        return None
    p = [v for v in ints if v is not None]
    if n == 1 and len(p) == 2:
        return [(p[0], p[1])]
    if n == 2 and len(p) == 4:  # (top, left, bottom, right)
        return [(p[0], p[2]), (p[1], p[3])]
    if n == 3 and len(p) == 3:  # symmetric (depth, height, width)
        return [(v, v) for v in p]
    return None


def _same_padding(kernel: int, stride: int, size: int) -> tuple[int, int]:
    """burn-nn's `calculate_same_padding` (the odd one goes to the end)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0) if out > 0 else 0
    return total // 2, total - total // 2


def _window_out(
    size: int, pads: tuple[int, int], k: int, s: int, d: int, ceil: object
) -> int | None:
    numerator = size + pads[0] + pads[1] - d * (k - 1) - 1
    if numerator < 0 or s <= 0:
        return None  # burn underflows and panics
    floor = numerator // s + 1
    up = -(-numerator // s) + 1
    if ceil is True:
        return up
    if ceil is False or floor == up:
        return floor
    return None


def _windowed(e: Entry, config: Config, x: Shape, stride_key: str, pool: bool) -> Dims | None:
    n = e.get("spatial")
    if not isinstance(n, int) or x.dims is None or len(x.dims) != n + 2:
        return None
    kernel = per_dim(config.get("kernel_size"), n)
    stride = per_dim(config.get(stride_key), n)
    # a pool without a dilation field (the avg pools) has dilation 1
    dkey = e.get("dilation") if pool else "dilation"
    dilation = per_dim(config.get(dkey), n) if isinstance(dkey, str) else [1] * n
    padding = _padding(config.get("padding"), n)
    ceil = config.get("ceil_mode") if pool else False
    out: list[Dim] = []
    for i, size in enumerate(x.dims[2:]):
        if kernel is None or stride is None or dilation is None or padding is None:
            out.append(None)
            continue
        k, s, d = kernel[i], stride[i], dilation[i]
        if k < 1 or s < 1 or d < 1:
            return None  # burn underflows or divides by zero: it panics
        if not is_int(size):
            keeps = padding == "Same" and s == 1 and d == 1 and k >= 1
            out.append(size if keeps else None)
            continue
        assert isinstance(size, int)
        pads = (0, 0) if padding == "Valid" else None
        if padding == "Same":
            pads = _same_padding(k, s, size)
            if n == 3 and pads[0] != pads[1]:
                return None  # burn panics on asymmetric 3d "Same"
        elif isinstance(padding, list):
            pads = padding[i]
        out.append(None if pads is None else _window_out(size, pads, k, s, d, ceil))
    return tuple(out)


def conv(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`[batch, c_in, *spatial] -> [batch, c_out, *out]`, out per burn's conv formula."""
    spatial = _windowed(e, config, x, "stride", pool=False)
    if spatial is None or x.dims is None:
        return None
    return (x.dims[0], _size(field(config, e.get("channels_out"))), *spatial)


def pool(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`[batch, c, *spatial] -> [batch, c, *out]` (burn's `calculate_pool_output_size`)."""
    key = e.get("stride")
    spatial = _windowed(e, config, x, key if isinstance(key, str) else "stride", pool=True)
    if spatial is None or x.dims is None:
        return None
    return (x.dims[0], x.dims[1], *spatial)


def conv_transpose(e: Entry, config: Config, x: Shape) -> Dims | None:
    """`(size - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding`."""
    n = e.get("spatial")
    if not isinstance(n, int) or x.dims is None or len(x.dims) != n + 2:
        return None
    keys = ("kernel_size", "stride", "dilation", "padding", "padding_out")
    k, s, d, p, po = (per_dim(config.get(key), n) for key in keys)
    out: list[Dim] = []
    for i, size in enumerate(x.dims[2:]):
        if not isinstance(size, int) or None in (k, s, d, p, po):
            out.append(None)
            continue
        assert k and s and d and p and po
        value = (size - 1) * s[i] + d[i] * (k[i] - 1) + 1 + po[i] - 2 * p[i]
        out.append(value if value >= 0 else None)
    return (x.dims[0], _size(field(config, e.get("channels_out"))), *out)


def adaptive_pool(e: Entry, config: Config, x: Shape) -> Dims | None:
    n = e.get("spatial")
    if not isinstance(n, int) or x.dims is None or len(x.dims) != n + 2:
        return None
    sizes = per_dim(config.get("output_size"), n)
    return (x.dims[0], x.dims[1], *(sizes if sizes is not None else [None] * n))


def interpolate(e: Entry, config: Config, x: Shape) -> Dims | None:
    """Exactly one of `output_size` and `scale_factor` is Some (burn panics otherwise); a scale
    gives `floor(size * scale)` with the scale read as f32."""
    n = e.get("spatial")
    if not isinstance(n, int) or x.dims is None or len(x.dims) != n + 2:
        return None
    size_v, scale_v = config.get("output_size"), config.get("scale_factor")
    if size_v is None or scale_v is None:
        return (x.dims[0], x.dims[1], *[None] * n)
    if size_v != "None" and scale_v == "None":
        sizes = per_dim(size_v, n)
        return (x.dims[0], x.dims[1], *(sizes if sizes is not None else [None] * n))
    if size_v == "None" and scale_v != "None":
        scales = _floats(scale_v, n)
        out = [_scaled(d, f) for d, f in zip(x.dims[2:], scales, strict=True)]
        return (x.dims[0], x.dims[1], *out)
    return None


def pixel_shuffle(e: Entry, config: Config, x: Shape) -> Dims | None:
    """PixelShuffle `[b, c * r^2, h, w] -> [b, c, h * r, w * r]`; PixelUnshuffle the inverse
    (`up = false`). burn asserts the divisions are exact."""
    r = as_int(field(config, e.get("factor")))
    if x.dims is None or len(x.dims) != 4 or r is None or r < 1:
        return None
    b, c, h, w = x.dims
    split = (c,) if e.get("up") else (h, w)
    if any(isinstance(d, int) and d % (r * r if e.get("up") else r) for d in split):
        return None  # burn's assert fails: it panics
    if e.get("up"):
        return (b, _exact(c, r * r), _times(h, r), _times(w, r))
    return (b, _times(c, r * r), _exact(h, r), _exact(w, r))


def _times(d: Dim, k: int) -> Dim:
    return d if k == 1 else (d * k if isinstance(d, int) else None)


def _exact(d: Dim, k: int) -> Dim:
    if k == 1:
        return d
    return d // k if isinstance(d, int) and d % k == 0 else None


def _floats(v: object, n: int) -> list[float | None]:
    items = [v] if n == 1 and not isinstance(v, tuple | list) else v
    if not isinstance(items, tuple | list) or len(items) != n:
        return [None] * n
    return [
        float(f) if isinstance(f, int | float) and not isinstance(f, bool) else None for f in items
    ]


def _scaled(size: Dim, scale: float | None) -> Dim:
    """`(size as f64 * scale as f64) as usize`, the scale read as Rust's `f32` holds it; None
    where Rust's cast saturates or burn panics (not finite, negative, too large)."""
    if not isinstance(size, int) or scale is None:
        return None
    try:
        value = size * float(struct.unpack("f", struct.pack("f", scale))[0])
    except (OverflowError, struct.error):
        return None
    return int(value) if math.isfinite(value) and 0 <= value < 2**63 else None


def loss(e: Entry, config: Config, x: Shape) -> Dims | None:
    """A loss: its methods' shapes are the entry's (`ops.module_forward_shape`), not a
    forward's dims."""
    return None


MODULE_KINDS: dict[str, ModuleKind] = {
    "same": same,
    "loss": loss,
    "halve_dim": halve_dim,
    "linear": linear,
    "embedding": embedding,
    "rnn": rnn,
    "conv": conv,
    "conv_transpose": conv_transpose,
    "pool": pool,
    "adaptive_pool": adaptive_pool,
    "interpolate": interpolate,
    "pixel_shuffle": pixel_shuffle,
}


def module_dims(e: Entry, config: Config, x: Shape) -> Dims | None:
    kind = MODULE_KINDS.get(str(e.get("kind")))
    return None if kind is None else kind(e, config, x)


__all__: Sequence[str] = ("MODULE_KINDS", "module_dims")

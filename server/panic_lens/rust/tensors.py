"""Where a tensor value was created: its dtype and device as written, through locals and casts.

Answers only what the source states (`Tensor::from_data(data, (&dev, DType::U32))`,
`.cast(DType::U8)`, `Device::capture()`); anything decided at run time is unknown (None).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from panic_lens.model import Span
from panic_lens.rust.syntax import Node, method_call, node_text, span_of, strip_wrappers

if TYPE_CHECKING:
    from panic_lens.rust.facts import CallSite, FileFacts

TENSOR = "burn::tensor::Tensor"
DEVICE = "burn::tensor::Device"
DTYPES = ("burn::tensor::DType", "burn::tensor::IntDType", "burn::tensor::FloatDType")
CREATORS = frozenset(
    {"from_data", "zeros", "ones", "empty", "full", "from_ints", "from_floats", "from_bool",
     "random", "arange", "arange_step"}
)  # fmt: skip
# Methods whose result has the receiver's dtype and device.
SAME_DTYPE_AND_DEVICE = frozenset(
    {"clone", "reshape", "transpose", "swap_dims", "permute", "unsqueeze", "unsqueeze_dim",
     "squeeze", "squeeze_dim", "flatten", "slice", "narrow", "detach", "expand", "repeat",
     "repeat_dim", "flip"}
)  # fmt: skip
_MAX_STEPS = 64


@dataclass(frozen=True, slots=True)
class TensorOrigin:
    """A tensor's creation: dtype variant (e.g. "U32", None = the kind's default) and device."""

    created: Span
    dtype: str | None
    dtype_span: Span | None
    device: Node | None  # the device expression passed at creation (`a` in `(&a, DType::U32)`)


@dataclass(frozen=True, slots=True)
class CaptureDevice:
    """A local bound to `Device::capture()`: each call makes a new, distinct device."""

    name: str
    binding: Node  # the binding's declaration: two devices are the same iff this is the same
    created: Span


def tensor_origin(expr: Node | None, facts: FileFacts) -> TensorOrigin | None:
    """Follow locals, dtype-keeping methods and casts back to a burn tensor constructor."""
    cast: tuple[str, Span] | None = None
    cur = strip_wrappers(expr)
    for _ in range(_MAX_STEPS):
        if cur is None:
            return None
        if cur.type == "identifier":
            cur = strip_wrappers(facts.value_origin(cur))
            continue
        parts = method_call(cur)
        if parts is not None:
            name = node_text(parts[1], facts.src)
            if name == "cast" and cast is None:  # the outermost cast decides the dtype
                cast = _dtype_of(parts[2][0], facts) if parts[2] else None
                if cast is None:
                    return None  # cast to something not written statically
            elif name not in SAME_DTYPE_AND_DEVICE and name != "cast":
                return None
            cur = strip_wrappers(parts[0])
            continue
        origin = _creation(cur, facts)
        if origin is None or cast is None:
            return origin
        return replace(origin, dtype=cast[0], dtype_span=cast[1])
    return None


def capture_device(expr: Node | None, facts: FileFacts) -> CaptureDevice | None:
    """The capture device a local holds, when it was bound to `Device::capture()`."""
    ident = strip_wrappers(expr)
    if ident is None or ident.type != "identifier":
        return None
    binding = facts.binding(ident)
    value = strip_wrappers(binding.value) if binding is not None else None
    if binding is None or binding.kind != "let" or value is None:
        return None
    site = _site(value, facts)
    if site is None or site.path != f"{DEVICE}::capture":
        return None
    return CaptureDevice(binding.name, binding.decl, span_of(value))


def _creation(node: Node, facts: FileFacts) -> TensorOrigin | None:
    site = _site(node, facts)
    if site is None or site.kind != "path" or site.name not in CREATORS:
        return None
    if site.path is None or site.path.rsplit("::", 1)[0] != TENSOR or not site.args:
        return None
    options = strip_wrappers(site.args[-1])
    if options is not None and options.type == "tuple_expression" and options.named_children:
        device = options.named_children[0]
        dtype = _dtype_of(options.named_children[-1], facts)
        if dtype is None:
            return None  # a dtype chosen at run time
        return TensorOrigin(span_of(node), dtype[0], dtype[1], strip_wrappers(device))
    return TensorOrigin(span_of(node), None, None, options)


def _dtype_of(node: Node, facts: FileFacts) -> tuple[str, Span] | None:
    """`DType::U32` (any burn dtype enum, any import form) -> ("U32", span)."""
    node = strip_wrappers(node) or node
    if node.type not in ("scoped_identifier", "identifier"):  # `DType::U32`, or `U32` by glob
        return None
    path = facts.resolve(node)
    if path is None or path.rsplit("::", 1)[0] not in DTYPES:
        return None
    return path.rsplit("::", 1)[1], span_of(node)


def _site(node: Node, facts: FileFacts) -> CallSite | None:
    return facts.call_site(node) if node.type == "call_expression" else None

"""router-unsupported-dtype: RouterChannel::change_client_backend cannot move unsigned ints.

Flags `.to_device(&b)` of a U8..U64 tensor created on one capture device when `b` is another
(error), direct `change_client_backend` calls through the trait's default (warning), and notes
an `impl RouterChannel` that inherits that default (information). burn-facts.md §3.
"""

from __future__ import annotations

from collections.abc import Iterator

from panic_lens.model import Finding, HoverFact, Related, Severity, Span
from panic_lens.rules.meta import ROUTER as INFO
from panic_lens.rules.router_channels import CHANNEL, direct_call_channel, impls_without_override
from panic_lens.rust.facts import CallSite, FileFacts
from panic_lens.rust.tensors import capture_device, tensor_origin

__all__ = ["INFO", "detect"]

UNSIGNED = frozenset({"U8", "U16", "U32", "U64"})
SUPPORTED = "float (F64, F32, Flex32, F16, BF16), signed int (I64, I32, I16, I8) and bool"
PANIC = "`not implemented` (a bare unimplemented!() in RouterChannel::change_client_backend)"


# Words without which this rule finds nothing: the first of each of its prefilter groups.
_TRIGGERS = tuple(group[0].encode() for group in INFO.prefilter_groups)
_CALL_NAMES = frozenset({"to_device", "change_client_backend"})


def detect(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    if not any(word in facts.src for word in _TRIGGERS):
        return
    for site in facts.calls(_CALL_NAMES):
        if site.name == "to_device" and site.kind == "method":
            yield from _to_device(site, facts)
        elif site.name == "change_client_backend":
            yield from _direct_call(site, facts)
    yield from _inheriting_impls(facts)


def _to_device(site: CallSite, facts: FileFacts) -> Iterator[Finding | HoverFact]:
    target = capture_device(site.args[0], facts) if site.args else None
    origin = tensor_origin(site.receiver, facts) if target is not None else None
    source = capture_device(origin.device, facts) if origin is not None else None
    if target is None or origin is None or source is None:
        return
    span = facts.span(site.name_node)
    dtype = origin.dtype or "the kind's default dtype"
    if source.binding == target.binding:
        same = (f"`{source.name}` and the target are the same capture device: no backend change",)
        yield HoverFact(INFO.id, span, "burn::tensor::Tensor::to_device", same)
        return
    risky = origin.dtype in UNSIGNED
    lines = (
        f"tensor created on capture device `{source.name}` (line {source.created.start.row + 1})"
        f" with dtype {dtype}",
        f"target `{target.name}` is another capture device (line {target.created.start.row + 1}):"
        " the move runs RouterChannel::change_client_backend",
        f"change_client_backend moves {SUPPORTED} tensors"
        + (f"; {origin.dtype} panics with {PANIC}" if risky else f"; {dtype} moves fine"),
    )
    yield HoverFact(INFO.id, span, "burn::tensor::Tensor::to_device", lines, flagged=risky)
    if risky:
        yield _move_finding(
            span,
            origin.dtype or "",
            source.name,
            target.name,
            lines,
            _move_evidence(origin.dtype_span, source.created, target.created),
        )


def _move_evidence(dtype_at: Span | None, source: Span, target: Span) -> tuple[Related, ...]:
    found = [Related(dtype_at, "unsigned dtype chosen here")] if dtype_at is not None else []
    found.append(Related(source, "source capture device"))
    found.append(Related(target, "target capture device (a different device)"))
    return tuple(found)


def _move_finding(
    span: Span, dtype: str, source: str, target: str, lines: tuple[str, ...],
    evidence: tuple[Related, ...],
) -> Finding:  # fmt: skip
    message = (
        f"moving a {dtype} tensor from capture device `{source}` to capture device `{target}` "
        f"panics: RouterChannel::change_client_backend handles {SUPPORTED} tensors only, so "
        f"{dtype} hits {PANIC}. Move a signed-int tensor (e.g. created with DType::I64) or "
        "rebuild the tensor from its TensorData on the target device."
    )
    return Finding(INFO.id, span, Severity.ERROR, message, evidence, facts=lines)


def _direct_call(site: CallSite, facts: FileFacts) -> Iterator[Finding | HoverFact]:
    found = direct_call_channel(site, facts)
    if found is None:
        return
    span = facts.span(site.name_node)
    if not found.default_body:
        own = (f"`{found.channel}` has its own change_client_backend ({found.why})",)
        yield HoverFact(INFO.id, span, f"{CHANNEL}::change_client_backend", own)
        return
    lines = (
        f"`{found.channel}` uses RouterChannel's default change_client_backend ({found.why})",
        f"it moves {SUPPORTED} tensors; U8, U16, U32, U64 and quantized tensors panic with {PANIC}",
    )
    yield HoverFact(INFO.id, span, f"{CHANNEL}::change_client_backend", lines, flagged=True)
    message = (
        f"RouterChannel::change_client_backend through the trait's default body ({found.why}) "
        f"moves only {SUPPORTED} tensors: unsigned-int (U8..U64) and quantized tensors hit "
        f"{PANIC}. Check the dtype first, or override change_client_backend in the channel."
    )
    evidence = (Related(found.where, f"`{found.channel}` is a RouterChannel here"),)
    yield Finding(INFO.id, span, Severity.WARNING, message, evidence, facts=lines)


def _inheriting_impls(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    for impl_name, name_span in impls_without_override(facts):
        lines = (
            f"`{impl_name}` keeps RouterChannel's default change_client_backend",
            f"moving U8..U64 tensors between its devices panics with {PANIC}",
        )
        yield HoverFact(INFO.id, name_span, CHANNEL, lines)
        message = (
            f"`{impl_name}` inherits RouterChannel's default change_client_backend, which moves "
            f"only {SUPPORTED} tensors; unsigned-int tensors moved between its devices hit "
            f"{PANIC}. Override change_client_backend if such moves can happen."
        )
        yield Finding(INFO.id, name_span, Severity.INFORMATION, message, facts=lines)

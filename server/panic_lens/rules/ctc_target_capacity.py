"""ctc-target-capacity: burn ctc_loss calls whose targets are statically 4096 or more wide.

burn's cubecl kernels assert `2 * S + 1 <= SHARED_ALPHA_CAPACITY` (8192), S = targets.dims()[1].
Only a width the source states counts; widths computed at run time give a hover fact only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from panic_lens import evaluate
from panic_lens.evaluate import Value
from panic_lens.model import Finding, HoverFact, Related, Severity
from panic_lens.rules.meta import CTC as INFO
from panic_lens.rust.crate import CUBECL_FEATURES
from panic_lens.rust.facts import CallSite, FileFacts
from panic_lens.rust.syntax import Node, child_by_field, enclosing, node_text

__all__ = ["INFO", "detect"]

FREE_FUNCTIONS = frozenset(
    {
        "burn::tensor::module::ctc_loss",
        "burn_cubecl::kernel::ctc::ctc_loss",
        "burn_cubecl::kernel::ctc::ctc_alpha_beta",
        "burn::tensor::ops::ModuleOps::ctc_loss",
    }
)
CTC_LOSS = "burn::nn::loss::CTCLoss"
MODULE_METHODS = frozenset({"forward", "forward_with_reduction"})
UFCS_FORWARD = frozenset(f"{CTC_LOSS}::{method}" for method in MODULE_METHODS)
# The calls `_recognise` reads, besides renames of the free functions.
CALL_NAMES = frozenset({"ctc_loss", "ctc_alpha_beta"}) | MODULE_METHODS
BACKEND_TRAITS = frozenset({"burn::tensor::ops::ModuleOps", "burn::tensor::backend::Backend"})
_BACKEND_BOUND_WORDS = ("Backend", "ModuleOps")


@dataclass(frozen=True, slots=True)
class _Call:
    """A recognised ctc call: which burn API, and its targets argument."""

    site: CallSite
    api: str
    targets: Node | None


def detect(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    """A HoverFact for every burn ctc call, and a Finding when its width exceeds the capacity."""
    capacity = facts.settings.ctc_capacity
    for site in facts.calls(CALL_NAMES, renamed=True):
        call = _recognise(site, facts)
        if call is None:
            continue
        shape = evaluate.shape_of(call.targets, facts) if call.targets is not None else None
        width = _width(call.targets, shape, facts)
        if width is None or 2 * width.value + 1 <= capacity:
            span = facts.span(site.name_node)
            yield HoverFact(INFO.id, span, call.api, _safe_facts(width, facts))
            continue
        finding = _finding(call, shape, width, facts)
        yield HoverFact(INFO.id, finding.span, call.api, finding.facts, flagged=True)
        yield finding


# --- which calls are burn's ctc -------------------------------------------------------------


def _recognise(site: CallSite, facts: FileFacts) -> _Call | None:
    if site.name not in ("ctc_loss", "ctc_alpha_beta") and site.name not in MODULE_METHODS:
        # a renamed import (`use burn::tensor::module::ctc_loss as ctc`) keeps its path
        return _call(site, site.resolves_to(FREE_FUNCTIONS), 1)
    if site.kind == "method":
        return _module_call(site, facts)
    if site.kind == "qualified":
        return _call(site, f"{site.trait_path}::ctc_loss", 1) if _backend_trait(site) else None
    free = site.resolves_to(FREE_FUNCTIONS)
    if free is not None:
        return _call(site, free, 1)
    ufcs = site.resolves_to(UFCS_FORWARD)
    if ufcs is not None:
        return _call(site, ufcs, 2)  # UFCS: the module itself is the first argument
    if site.name == "ctc_loss" and site.owner is not None and _generic_backend(site, facts):
        return _call(site, f"{facts.text(site.owner)}::ctc_loss (burn Backend)", 1)
    return None


def _call(site: CallSite, api: str | None, index: int) -> _Call | None:
    if api is None:
        return None
    return _Call(site, api, site.args[index] if len(site.args) > index else None)


def _module_call(site: CallSite, facts: FileFacts) -> _Call | None:
    if site.name not in MODULE_METHODS or site.receiver is None:
        return None
    receiver = facts.type_of(site.receiver)
    if receiver is None or receiver.path != CTC_LOSS:
        return None
    return _call(site, f"{CTC_LOSS}::{site.name}", 1)


def _backend_trait(site: CallSite) -> bool:
    return site.name == "ctc_loss" and site.trait_path in BACKEND_TRAITS


def _generic_backend(site: CallSite, facts: FileFacts) -> bool:
    """`B::ctc_loss(..)` where B is a type parameter bounded by burn's Backend or ModuleOps."""
    owner = site.owner
    if owner is None or owner.type not in ("identifier", "type_identifier"):
        return False
    name = facts.text(owner)
    root = facts.tree.root_node  # climbing .parent is quadratic in deep expressions
    item = enclosing(site.node, {"function_item", "impl_item"}, root)
    while item is not None:
        if _declares_backend_param(item, name, facts.src):
            return True
        item = enclosing(item, {"function_item", "impl_item"}, root)
    return False


def _declares_backend_param(item: Node, name: str, src: bytes) -> bool:
    params = child_by_field(item, "type_parameters")
    where = next((c for c in item.named_children if c.type == "where_clause"), None)
    for part in (params, where):
        text = node_text(part, src).removeprefix("where") if part is not None else ""
        for clause in text.strip().strip("<>").split(","):
            head, _, bound = clause.partition(":")
            if head.strip() == name and any(w in bound for w in _BACKEND_BOUND_WORDS):
                return True
    return False


# --- facts, severity and the finding --------------------------------------------------------


def _width(targets: Node | None, shape: evaluate.Shape | None, facts: FileFacts) -> Value | None:
    if shape is None or shape.dims is None or len(shape.dims) != 2:
        return None
    return evaluate.dim_of(targets, 1, facts)


def _limit(facts: FileFacts) -> int:
    return (facts.settings.ctc_capacity - 1) // 2


def _where(fact: Value, facts: FileFacts) -> str:
    """`const CHAPTER_WIDTH, line 17` (with the file name when it is another file)."""
    row = fact.origin.start.row + 1 if fact.origin is not None else 0
    line = f"line {row}"
    if fact.path is not None and fact.path != facts.path:
        line = f"{fact.path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{row}"
    return f"{fact.note}, {line}" if fact.note else line


def _safe_facts(width: Value | None, facts: FileFacts) -> tuple[str, ...]:
    limit = _limit(facts)
    if width is None:
        return (
            "targets width not known statically (computed at run time or passed in)",
            f"the cubecl ctc kernels panic from width {limit + 1}",
        )
    return (f"targets width {width.value} ({_where(width, facts)}), within the {limit} limit",)


def _severity(facts: FileFacts) -> tuple[Severity, str]:
    crate = facts.crate
    cubecl = sorted(crate.backends & (CUBECL_FEATURES | {"cubecl"}))
    if cubecl:
        return Severity.ERROR, f"panics on {', '.join(cubecl)} (cubecl)"
    if crate.manifest is None:
        return Severity.WARNING, "panics on every cubecl backend (no Cargo.toml found)"
    optional = sorted(crate.optional_backends & (CUBECL_FEATURES | {"cubecl"}))
    if optional:
        return Severity.WARNING, f"panics when the optional {', '.join(optional)} backend is on"
    other = ", ".join(sorted(crate.backends)) or "burn's default (flex)"
    return Severity.HINT, f"would panic on a cubecl backend; this crate uses {other}"


def _finding(call: _Call, shape: evaluate.Shape | None, width: Value, facts: FileFacts) -> Finding:
    capacity, s = facts.settings.ctc_capacity, width.value
    severity, where = _severity(facts)
    message = (
        f"{_display(call.api)} targets width S = {s} ({_where(width, facts)}): "
        f"2 * S + 1 = {2 * s + 1} exceeds the kernel's alpha capacity {capacity}; {where}. "
        f"Keep targets at most {_limit(facts)} wide."
    )
    hover = (
        f"targets width S = {s} ({_where(width, facts)})",
        f"2 * S + 1 = {2 * s + 1} > capacity {capacity}: the widest that passes is {_limit(facts)}",
        f"severity {severity.value}: {where}",
        f"runtime panic: ctc_loss: 2 * max_target_len + 1 = {2 * s + 1} exceeds the kernel's "
        f"shared-memory alpha capacity ({capacity}).",
    )
    return Finding(
        rule=INFO.id,
        span=facts.span(call.site.name_node),
        severity=severity,
        message=message,
        evidence=_evidence(shape, width, facts),
        path=facts.path,
        facts=hover,
    )


def _display(api: str) -> str:
    """`burn::nn::loss::CTCLoss::forward` -> `CTCLoss::forward`; free functions by name."""
    parts = api.split(" ")[0].split("::")
    return "::".join(parts[-2:]) if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1]


def _evidence(shape: evaluate.Shape | None, width: Value, facts: FileFacts) -> tuple[Related, ...]:
    other = width.path if width.path is not None and width.path != facts.path else None
    out = []
    if width.origin is not None:
        out.append(Related(width.origin, f"targets width {width.value} comes from here", other))
    made = evaluate.made_at(shape, facts) if shape is not None else None
    if made is not None and made[0] != width.origin and made[0] is not None:
        out.append(Related(made[0], f"targets shape set by {made[1]}"))
    return tuple(out)

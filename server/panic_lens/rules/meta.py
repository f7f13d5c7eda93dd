"""The rules: what each is about (ids, titles, the burn APIs, the words it needs, docs) and
the one registry every path asks which rules there are.

Importable without tree-sitter, so the catalog can bind records to rules cheaply; a rule's
detector module (`RuleInfo.module`) is imported only when the engine runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from panic_lens.model import Severity


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a rule is about. `apis` are the burn names a record half must mention to bind."""

    id: str
    title: str
    summary: str
    apis: tuple[str, ...]
    default_severity: Severity
    # The module with the rule's `detect(facts)`, imported when the engine runs the rule.
    module: str
    # Call names without one of which the rule cannot fire in a file (a sound byte prefilter);
    # aliases of them declared elsewhere in the crate must be added by the prefilter itself.
    triggers: tuple[str, ...] = ()
    # Sharper, still sound: any-of groups of all-of words. The rule can only fire in a file
    # that, for some group, mentions every word or a name the crate gives it (the engine
    # resolves names through `use .. as` and `type` across the crate's files, never others).
    # Empty: each trigger is a group on its own.
    conditions: tuple[tuple[str, ...], ...] = ()

    @property
    def prefilter_groups(self) -> tuple[tuple[str, ...], ...]:
        return self.conditions or tuple((t,) for t in self.triggers)

    @property
    def doc_path(self) -> Path:
        """The rule's Markdown page, shipped in the wheel or read from the source tree."""
        return docs_root() / f"{self.id}.md"

    @property
    def doc_uri(self) -> str:
        return self.doc_path.resolve().as_uri()


CTC = RuleInfo(
    id="ctc-target-capacity",
    title="ctc_loss targets wider than the cubecl kernel's alpha capacity",
    summary=(
        "burn's cubecl ctc_loss kernels assert 2 * S + 1 <= 8192, where S is the padded width of "
        "the targets tensor: a width of 4096 or more panics on cuda, rocm, wgpu, vulkan, metal, "
        "webgpu and cpu."
    ),
    apis=(
        "ctc_loss",
        "ctc_loss_backward",
        "CTCLoss",
        "CTCLossConfig",
        "ctc_alpha_beta",
        "SHARED_ALPHA_CAPACITY",
        "max_target_len",
    ),
    default_severity=Severity.ERROR,
    module="panic_lens.rules.ctc_target_capacity",
    triggers=("ctc_loss", "ctc_alpha_beta", "forward"),  # CTCLoss::forward(_with_reduction)
    # `forward` is burn's only for a receiver typed from a name resolving to CTCLoss or
    # CTCLossConfig (`.init()`), which contains "CTCLoss"; UFCS writes `CTCLoss::forward`.
    conditions=(("ctc_loss",), ("ctc_alpha_beta",), ("forward", "CTCLoss")),
)
ASYNC_POLICY = RuleInfo(
    id="async-policy-load-record",
    title="load_record on burn-rl's AsyncPolicy",
    summary=(
        "Policy::load_record on burn_rl::AsyncPolicy is unimplemented!() and always panics; "
        "load the record on the inner policy before wrapping it, or use "
        "p.update(p.state().load_record(r))."
    ),
    apis=("AsyncPolicy",),
    default_severity=Severity.ERROR,
    module="panic_lens.rules.async_policy_load_record",
    triggers=("load_record",),
    # The receiver (method, UFCS or `Policy::load_record(p, ..)`) must be typed AsyncPolicy
    # from a name written in the file or a crate alias of it.
    conditions=(("load_record", "AsyncPolicy"),),
)
ROUTER = RuleInfo(
    id="router-unsupported-dtype",
    title="RouterChannel::change_client_backend with a dtype it cannot move",
    summary=(
        "The default RouterChannel::change_client_backend handles float, signed int and bool "
        "tensors only; unsigned ints (U8..U64) and quantized tensors hit unimplemented!()."
    ),
    apis=("change_client_backend", "RouterChannel", "change_backend_float", "change_backend_int"),
    default_severity=Severity.WARNING,
    module="panic_lens.rules.router_unsupported_dtype",
    triggers=("to_device", "change_client_backend", "RouterChannel"),
    # A `.to_device(&b)` finding needs both devices bound by `let` to `Device::capture()` in
    # the same file; the other two forms name the method or the trait.
    conditions=(("to_device", "capture"), ("change_client_backend",), ("RouterChannel",)),
)
INTERPOLATE = RuleInfo(
    id="interpolate-backward-mode",
    title="interpolate backward in a mode with no backward kernel",
    summary=(
        "On cubecl backends only Nearest and NearestExact interpolation have a backward kernel; "
        "Bilinear, Bicubic and Lanczos3 (nn: Linear, Cubic, Lanczos) panic in the backward pass."
    ),
    apis=(
        "interpolate",
        "interpolate_backward",
        "InterpolateMode",
        "InterpolateOptions",
        "Interpolate1d",
        "Interpolate2d",
    ),
    default_severity=Severity.WARNING,
    module="panic_lens.rules.interpolate_backward_mode",
    triggers=("interpolate", "with_mode"),
)

SHIPPED: tuple[RuleInfo, ...] = (CTC, ASYNC_POLICY, ROUTER, INTERPOLATE)
_added: list[RuleInfo] = []  # the registry: rules added to the shipped ones, in order
_generation = [0]  # bumped by every change of the registry (keys the prefilter's tables)


def rules() -> tuple[RuleInfo, ...]:
    """Every rule there is: the shipped ones, then the added ones. Every path (the engine,
    the prefilter, the cache keys, the reports, the settings) asks this, never a copy."""
    return SHIPPED + tuple(_added)


def rule_by_id(rule_id: str) -> RuleInfo | None:
    return next((r for r in rules() if r.id == rule_id), None)


def rule_ids() -> tuple[str, ...]:
    return tuple(r.id for r in rules())


def generation() -> int:
    """Changes whenever the set of rules does (a key for tables computed from the rules)."""
    return _generation[0]


def add_rule(info: RuleInfo) -> None:
    """Register a rule beside the shipped ones (its detector module must be importable)."""
    if rule_by_id(info.id) is not None:
        raise ValueError(f"a rule with id {info.id!r} exists already")
    _added.append(info)
    _generation[0] += 1


def remove_rule(rule_id: str) -> None:
    _added[:] = [r for r in _added if r.id != rule_id]
    _generation[0] += 1


SUPPRESSION_RULE = "panic-lens-suppression"  # hints about `// panic-lens: allow(..)` comments


def docs_root() -> Path:
    """docs/rules inside the installed package, else in the source checkout."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_docs" / "rules"
    return packaged if packaged.is_dir() else here.parent.parent / "docs" / "rules"

"""The rules: what each is about (ids, titles, the burn APIs, the words it needs, docs) and
the one registry every path asks which rules there are.

Importable without tree-sitter, so the catalog can bind records to rules cheaply; a rule's
detector module (`RuleInfo.module`) is imported only when the engine runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps
from pathlib import Path
from typing import TypeVar

from panic_lens.model import Severity


@dataclass(frozen=True, slots=True)
class BurnSite:
    """A place in burn's source where a rule's panic is raised (plain data, as a rule file says).

    A record's panic half is about this panic when it names the same `file` and either quotes
    `guard` in its sourceCode or carries `message` in its errorMessage or messagePattern
    (whitespace is ignored in both). `line` never decides alone: it only orders two matching
    sites of the same file.
    """

    file: str  # path inside the burn repository: crates/<crate>/src/...
    guard: str  # a distinctive fragment of the assert or panic line(s)
    message: str  # a literal fragment of the panic's format string, with no `{}` holes
    line: int | None = None  # where the guard sits in burn 0.22.0-pre.2 (or the version noted)


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a rule is about. `apis` are the burn names a knowledge half mentions to bind by words;
    `panic_sites` are where in burn the rule's panic is raised, which a panic half must match."""

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
    panic_sites: tuple[BurnSite, ...] = ()

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


# The panic sites, read in burn 0.22.0-pre.2 and v0.21.0. Where the text is the same in both,
# one site covers both versions and `line` is the 0.22 one.
CTC_FILE = "crates/burn-cubecl/src/kernel/ctc.rs"
CTC_GUARD = "max_l_prime as u32 <= SHARED_ALPHA_CAPACITY"
CTC_SITES = (
    # forward (`ctc_loss`), v0.21.0 line 306
    BurnSite(CTC_FILE, CTC_GUARD, "ctc_loss: 2 * max_target_len + 1 =", 307),
    # backward (`ctc_alpha_beta`), v0.21.0 line 606
    BurnSite(CTC_FILE, CTC_GUARD, "ctc_loss_backward: 2 * max_target_len + 1 =", 610),
)
ASYNC_POLICY_FILE = "crates/burn-rl/src/policy/async_policy.rs"
ASYNC_POLICY_SITES = (
    BurnSite(
        ASYNC_POLICY_FILE,
        'unimplemented!("Not implemented yet. Please load the record on the inner policy',
        "Please load the record on the inner policy before creating an async policy",
        321,
    ),
    # v0.21.0: `load_record` was the file's only `todo!()` (runtime text "not yet implemented")
    BurnSite(ASYNC_POLICY_FILE, "todo!()", "not yet implemented", 312),
)
# The default `change_client_backend`'s last dtype branch (v0.21.0 line 59), the file's only
# `unimplemented!`. Not burn-router's ops/qtensor.rs: every QTensorOps method there is a bare
# `unimplemented!()` (quantize, dequantize, q_to_device, ...), so neither its guard nor its
# message tells a q_to_device record from the others, and the rule does not report them.
ROUTER_SITES = (
    BurnSite(
        "crates/burn-router/src/channel/base.rs", "} else { unimplemented!()", "not implemented", 53
    ),
)
INTERPOLATE_FILE = "crates/burn-cubecl/src/kernel/interpolate/base.rs"
INTERPOLATE_SITES = (
    BurnSite(
        INTERPOLATE_FILE,
        'panic!("interpolate_backward kernel failed',
        "interpolate_backward kernel failed",
        146,
    ),
    # v0.21.0: one `panic!` per mode (bilinear, bicubic, lanczos3), lines 73, 76 and 79
    BurnSite(
        INTERPOLATE_FILE,
        "interpolation backward is not supported by JIT backend",
        "interpolation backward is not supported by JIT backend",
        73,
    ),
)


CTC = RuleInfo(
    id="ctc-target-capacity",
    panic_sites=CTC_SITES,
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
    panic_sites=ASYNC_POLICY_SITES,
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
    panic_sites=ROUTER_SITES,
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
    panic_sites=INTERPOLATE_SITES,
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


T = TypeVar("T")


def per_rule_set(compute: Callable[[], T]) -> Callable[[], T]:
    """`compute`, run once per state of the registry: for tables computed from the rules
    (prefilter words, cache keys), which a rule added later must change."""
    cached = lru_cache(maxsize=2)(lambda _generation: compute())

    @wraps(compute)
    def current() -> T:
        return cached(generation())

    return current


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

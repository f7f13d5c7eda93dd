"""interpolate-backward-mode: smooth interpolation modes in code that trains.

cubecl backends have a backward kernel for Nearest and NearestExact only. The two burn enums
(tensor ops and nn) are told apart by their resolved import path; other enums never match.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from panic_lens.evaluate.fields import derives
from panic_lens.evaluate.scope import unit_of
from panic_lens.model import Edit, Finding, Fix, HoverFact, Related, Severity, Span
from panic_lens.rules.meta import INTERPOLATE as INFO
from panic_lens.rust.crate import CUBECL_FEATURES
from panic_lens.rust.facts import CallSite, FileFacts, TrainingSignal
from panic_lens.rust.syntax import Node, call_parts, child_by_field, method_call, strip_wrappers
from panic_lens.rust.testcode import in_test_code

__all__ = ["INFO", "detect"]

OPS_ENUM = "burn::tensor::ops::InterpolateMode"
NN_ENUM = "burn::nn::interpolate::InterpolateMode"
OPTIONS = "burn::tensor::ops::InterpolateOptions"
FREE_FUNCTIONS = frozenset({"burn::tensor::module::interpolate"})
CONFIGS = frozenset(
    {"burn::nn::interpolate::Interpolate1dConfig", "burn::nn::interpolate::Interpolate2dConfig"}
)
CONFIG_NEW = frozenset(f"{c}::new" for c in CONFIGS)
MODULES = frozenset(c.removesuffix("Config") for c in CONFIGS)
# The calls `_recognise` and `_module_hover` read, besides renames of `interpolate`.
CALL_NAMES = frozenset({"interpolate", "with_mode", "new", "forward"})
# Variant -> the ops-level mode burn runs (the nn enum maps Linear to Bilinear etc.).
OPS_MODE = {
    f"{OPS_ENUM}::{v}": v for v in ("Nearest", "NearestExact", "Bilinear", "Bicubic", "Lanczos3")
}
OPS_MODE |= {
    f"{NN_ENUM}::Nearest": "Nearest",
    f"{NN_ENUM}::NearestExact": "NearestExact",
    f"{NN_ENUM}::Linear": "Bilinear",
    f"{NN_ENUM}::Cubic": "Bicubic",
    f"{NN_ENUM}::Lanczos": "Lanczos3",
}
RISKY = frozenset({"Bilinear", "Bicubic", "Lanczos3"})
# Backward support of the risky modes outside cubecl (burn-facts.md, section 4).
BACKWARD_PANICS = {
    "flex": frozenset({"Lanczos3"}),
    "ndarray": RISKY,
    "tch": frozenset({"Lanczos3"}),
}
DATA_TRAITS = frozenset({"Batcher", "Mapper", "Metric", "Dataset"})
# A tensor made by these (functions of `Tensor`, methods that make a new tensor, `detach`) is
# tracked by no autodiff graph: no backward pass runs through the ops applied to it.
UNTRACKED_MAKERS = frozenset(
    {"from_data", "from_floats", "from_ints", "from_bool", "from_primitive", "zeros", "ones",
     "full", "empty", "random", "arange", "arange_step", "eye", "zeros_like", "ones_like",
     "full_like", "random_like", "detach", "inner"}
)  # fmt: skip
# Methods whose result is (or may be) tracked whatever their receiver: a module's output, a
# parameter's value, a tensor that asks for its gradient.
TRACKING_METHODS = frozenset({"forward", "val", "require_grad", "set_require_grad"})
_MAX_TRACE = 3  # functions followed back to their callers in the file
_MAX_HOPS = 16
# `cfg(` then `test` later on its line is tried from line starts only, up to the line's first
# `cfg(`: tried from every `cfg(` it took quadratic time (6 s on a 56 KB attribute).


@dataclass(frozen=True, slots=True)
class _Mode:
    """A statically known mode: the written variant, what burn runs, where it is written."""

    variant: str  # e.g. "burn::nn::interpolate::InterpolateMode::Linear"
    ops: str  # e.g. "Bilinear"
    name_node: Node  # the variant identifier, replaced by the fix


def detect(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    """A HoverFact for every burn interpolate call / nn mode setting; a Finding when risky."""
    for site in facts.calls(CALL_NAMES, renamed=True):
        found = _recognise(site, facts)
        if found is None:
            hover = _module_hover(site, facts)
            if hover is not None:
                yield hover
            continue
        api, mode_expr = found
        mode = _mode_of(mode_expr, facts)
        span = facts.span(site.name_node)
        if mode is None or mode.ops not in RISKY:
            yield HoverFact(INFO.id, span, api, _quiet_facts(mode, facts))
            continue
        finding = _finding(site, mode, facts)
        yield HoverFact(INFO.id, span, api, finding.facts, flagged=True)
        yield finding


# --- which calls, which mode ----------------------------------------------------------------


def _recognise(site: CallSite, facts: FileFacts) -> tuple[str, Node | None] | None:
    """(api, mode expression) for burn's interpolate and the nn configs' `with_mode`."""
    free = site.resolves_to(FREE_FUNCTIONS)
    if free is not None:
        options = site.args[2] if len(site.args) > 2 else None
        return free, _options_mode(options, facts)
    if site.kind != "method" or site.name != "with_mode" or site.receiver is None:
        return None
    config = facts.type_of(site.receiver)
    if config is None or config.path not in CONFIGS or _overridden_later(site, facts):
        return None
    return f"{config.path}::with_mode", site.args[0] if site.args else None


def _overridden_later(site: CallSite, facts: FileFacts) -> bool:
    """`.with_mode(A).with_mode(B)`: only the last setting counts."""
    node = site.node
    while node.parent is not None and node.parent.type == "field_expression":
        outer = node.parent.parent
        parts = method_call(outer) if outer is not None else None
        if parts is None or outer is None:
            return False
        if facts.text(parts[1]) == "with_mode":
            return True
        node = outer
    return False


def _module_hover(site: CallSite, facts: FileFacts) -> HoverFact | None:
    """Hovers for `Interpolate1d/2dConfig::new()` without a mode and `.forward` on the module."""
    new = site.resolves_to(CONFIG_NEW)
    if new is not None and not _overridden_later(site, facts):
        note = "mode defaults to Nearest (backward on every backend) unless .with_mode(..) sets it"
        return HoverFact(INFO.id, facts.span(site.name_node), new, (note,))
    if site.kind != "method" or site.name != "forward" or site.receiver is None:
        return None
    module = facts.type_of(site.receiver)
    if module is None or module.path not in MODULES:
        return None
    span = facts.span(site.name_node)
    chain = facts.builder_chain(site.receiver)
    set_by = chain.last("with_mode") if chain is not None else None
    mode = _mode_of(set_by.args[0], facts) if set_by is not None and set_by.args else None
    line = f"{module.path.rsplit('::', 1)[-1]} from {module.note}"
    if mode is None:
        return HoverFact(INFO.id, span, f"{module.path}::forward", (line,))
    return HoverFact(INFO.id, span, f"{module.path}::forward", (line, _mode_line(mode)))


def _mode_line(mode: _Mode) -> str:
    where = f"set on line {mode.name_node.start_point[0] + 1}"
    if mode.ops in RISKY:
        return f"mode {_short(mode.variant)} ({mode.ops}, {where}): no backward kernel on cubecl"
    return f"mode {_short(mode.variant)} ({where}): backward supported on every cubecl backend"


def _options_mode(options: Node | None, facts: FileFacts) -> Node | None:
    """The mode inside `InterpolateOptions::new(mode)[.with_..]` or a struct literal."""
    chain = facts.builder_chain(options)
    root = chain.root if chain is not None else strip_wrappers(options)
    if root is None:
        return None
    if root.type == "struct_expression":
        return _struct_field(root, "mode", facts) if _resolves(root, "name", facts) else None
    callee = child_by_field(root, "function") if root.type == "call_expression" else None
    if callee is None or facts.resolve(callee) != f"{OPTIONS}::new":
        return None
    args = child_by_field(root, "arguments")
    return args.named_children[0] if args is not None and args.named_children else None


def _resolves(node: Node, field: str, facts: FileFacts) -> bool:
    name = child_by_field(node, field)
    return name is not None and facts.resolve(name) == OPTIONS


def _struct_field(struct: Node, name: str, facts: FileFacts) -> Node | None:
    body = child_by_field(struct, "body")
    for item in body.named_children if body is not None else []:
        field = child_by_field(item, "field")
        if item.type == "field_initializer" and field is not None and facts.text(field) == name:
            return child_by_field(item, "value")
    return None


def _mode_of(expr: Node | None, facts: FileFacts) -> _Mode | None:
    """The enum variant an expression holds, through lets and `.into()`; None when unknown."""
    for _ in range(_MAX_HOPS):
        expr = strip_wrappers(expr)
        if expr is None:
            return None
        if expr.type == "identifier":
            expr = facts.value_origin(expr)
        elif (parts := method_call(expr)) is not None and facts.text(parts[1]) in ("into", "clone"):
            expr = parts[0]
        elif expr.type == "scoped_identifier":
            variant = facts.resolve(expr)
            name = child_by_field(expr, "name")
            if variant not in OPS_MODE or name is None:
                return None
            return _Mode(variant, OPS_MODE[variant], name)
        else:
            return None
    return None


# --- severity, facts, the finding and its fix -----------------------------------------------


def _signal(site: CallSite, facts: FileFacts) -> TrainingSignal | None:
    """The nearest training signal: in the same function, else the file, else the crate (its
    features, then a workspace member that depends on it and trains)."""
    signals = facts.training_signals()
    fn = _enclosing_fn_span(site.node, facts)
    in_fn = [s for s in signals if s.span is not None and fn is not None and _inside(s.span, fn)]
    # Batchers, mappers and metrics work on data, which never requires grad: only a signal
    # inside the function itself counts there.
    data_side = _in_data_impl(site.node, facts)
    in_file = [] if data_side else [s for s in signals if s.span is not None]
    # Tests and benches are entry points of their own: with no signal in the file, they run
    # forward only, whatever features the crate turns on for other code.
    in_crate = []
    if not data_side and not in_test_code(site.node, facts):
        in_crate = [*signals, *filter(None, (facts.workspace_signal(),))]
    for group in (in_fn, in_file, in_crate):
        if group:
            return group[0]
    return None


def _input_may_be_tracked(site: CallSite, facts: FileFacts) -> bool:
    """Whether the tensor `interpolate` resizes may be part of an autodiff graph, as far as
    the file shows. Yes: a module's output, a parameter's value, a tensor that requires grad,
    a field, what a function of the crate returns, a parameter of a method of a module (or of
    a type the file does not declare), of a public free function (its callers may be
    anywhere), of a private one nothing here calls, or of a function the file calls with such
    a tensor. No: a tensor made from data (`from_data`, `zeros`..) or detached, any op on
    such tensors, a parameter of a private function whose calls here all pass such tensors,
    and one of a method of a type the file declares without `#[derive(Module)]` that no code
    here calls with a tracked tensor. burn's autodiff runs an op's backward only
    for tensors that track their graph: without one, no backward pass runs through here."""
    free = site.resolves_to(FREE_FUNCTIONS)
    if free is None:  # the nn modules' `with_mode`: their input is seen at `forward`
        return True
    return _tracked(site.args[0] if site.args else None, facts, 0)


def _tracked(expr: Node | None, facts: FileFacts, hops: int) -> bool:
    expr = strip_wrappers(expr)
    if expr is None:
        return True
    kind = expr.type
    if kind in ("integer_literal", "float_literal", "boolean_literal", "string_literal",
                "array_expression", "range_expression", "unit_expression"):  # fmt: skip
        return False
    if kind == "identifier":
        binding = facts.binding(expr)
        if binding is None:
            return True
        if binding.kind == "param":
            return _param_tracked(binding.decl, facts, hops)
        if binding.kind in ("let", "assign") and binding.value is not None:
            return _tracked(binding.value, facts, hops)
        return True
    if kind == "binary_expression":
        return any(_tracked(child_by_field(expr, f), facts, hops) for f in ("left", "right"))
    if kind == "call_expression":
        return _call_tracked(expr, facts, hops)
    return True  # a field, a block, a branch, a macro..: not followed


def _call_tracked(call: Node, facts: FileFacts, hops: int) -> bool:
    parts = method_call(call)
    if parts is not None:
        receiver, name, args = parts
        method = facts.text(name)
        if method in TRACKING_METHODS:
            return True
        if method in UNTRACKED_MAKERS:
            return False
        return any(_tracked(a, facts, hops) for a in (receiver, *args))
    callee, args = call_parts(call)
    path = facts.resolve(callee) if callee is not None else None
    if path is None or not path.startswith("burn::"):
        return True  # the crate's own function, or one not known: what it returns is not read
    if path.rsplit("::", 1)[-1] in UNTRACKED_MAKERS:
        return False
    return any(_tracked(a, facts, hops) for a in args)  # `relu(x)`, `Tensor::cat(..)`..


def _param_tracked(decl: Node, facts: FileFacts, hops: int) -> bool:
    """A function's parameter (`_input_may_be_tracked`); a closure's is not followed."""
    fn = decl.parent
    while fn is not None and fn.type not in ("function_item", "closure_expression"):
        fn = fn.parent
    if fn is None or fn.type != "function_item" or hops >= _MAX_TRACE:
        return True
    impl = fn.parent.parent if fn.parent is not None else None
    plain = impl is not None and impl.type == "impl_item" and _plain_type(impl, facts)
    if impl is not None and impl.type == "impl_item" and not plain:
        return True  # a module's method, or a method of a type declared elsewhere
    if not plain and any(c.type == "visibility_modifier" for c in fn.children):
        return True  # a public free function: called from anywhere
    name_node, params = child_by_field(fn, "name"), child_by_field(fn, "parameters")
    if name_node is None or params is None:
        return True
    given = [p for p in params.named_children if p.type == "parameter"]
    at = next((i for i, p in enumerate(given) if _inside(decl, p)), None)
    if at is None:
        return True
    name = facts.text(name_node)
    called = False
    for site in facts.calls(frozenset({name})):
        if site.name != name or _inside(site.node, fn):  # not its own recursive calls
            continue
        called = True
        args = site.args
        if site.kind != "method" and len(args) == len(given) + 1:
            args = args[1:]  # `Self::f(self, x)`
        if at >= len(args) or _tracked(args[at], facts, hops + 1):
            return True
    # every call here passes a tensor no graph tracks; a private function nothing here calls
    # yet (being written, or called from elsewhere) is not known; a plain type's method that
    # nothing here calls works on the data its callers give
    return not (called or plain)


def _plain_type(impl: Node, facts: FileFacts) -> bool:
    """An `impl` of a struct or enum the file declares without `#[derive(Module)]` (and not
    an impl of burn's `Module` traits by hand): its methods are no module's code."""
    trait = child_by_field(impl, "trait")
    if trait is not None and "Module" in facts.text(trait):
        return False
    written = child_by_field(impl, "type")
    if written is None:
        return False
    name = facts.text(written).split("<", 1)[0].strip()
    item = facts.imports.local_item(name, impl)
    if item is None or item.type not in ("struct_item", "enum_item"):
        return False
    return not any(d.rsplit("::", 1)[-1] == "Module" for d in derives(item, unit_of(facts)))


def _in_data_impl(node: Node, facts: FileFacts) -> bool:
    """Inside `impl Batcher<..> for ..` (or Mapper, Metric, Dataset)."""
    cur = node.parent
    while cur is not None:
        trait = child_by_field(cur, "trait") if cur.type == "impl_item" else None
        if trait is not None and _last_segment(facts.text(trait)) in DATA_TRAITS:
            return True
        cur = cur.parent
    return False


def _last_segment(path: str) -> str:
    return path.split("<", 1)[0].rsplit("::", 1)[-1].strip()


def _enclosing_fn_span(node: Node, facts: FileFacts) -> Span | None:
    cur = node.parent
    while cur is not None and cur.type != "function_item":
        cur = cur.parent
    return facts.span(cur) if cur is not None else None


def _inside(inner: Span | Node, outer: Span | Node) -> bool:
    """Whether `inner`'s bytes are within `outer`'s (spans or nodes)."""
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _severity(mode: _Mode, signal: TrainingSignal | None, facts: FileFacts) -> tuple[Severity, str]:
    if signal is None:
        return Severity.HINT, "no training signal here, so forward-only use is safe"
    crate = facts.crate
    cubecl = sorted(crate.backends & (CUBECL_FEATURES | {"cubecl"}))
    if cubecl:
        return Severity.ERROR, f"the backward pass panics on {', '.join(cubecl)} (cubecl)"
    if crate.manifest is None:
        return Severity.WARNING, "the backward pass panics on every cubecl backend"
    if crate.only_non_cubecl:
        panicking = sorted(b for b in crate.backends if mode.ops in BACKWARD_PANICS.get(b, ()))
        if not panicking:
            using = ", ".join(sorted(crate.backends))
            return Severity.HINT, f"{using} has a {mode.ops} backward; cubecl backends do not"
        return Severity.WARNING, f"the backward pass panics on {', '.join(panicking)}"
    return Severity.WARNING, "the backward pass panics whenever a cubecl device is picked"


def _short(variant: str) -> str:
    return "::".join(variant.split("::")[-2:])


def _quiet_facts(mode: _Mode | None, facts: FileFacts) -> tuple[str, ...]:
    if mode is None:
        return (
            "interpolation mode not known statically (a variable, a config value or not burn's)",
        )
    return (f"mode {_short(mode.variant)}: backward supported on every cubecl backend",)


def _finding(site: CallSite, mode: _Mode, facts: FileFacts) -> Finding:
    signal = _signal(site, facts)
    severity, why = _severity(mode, signal, facts)
    if (
        signal is not None
        and (signal.span is None or signal.path is not None)  # the crate's, none in the file
        and severity in (Severity.ERROR, Severity.WARNING)
        and not _input_may_be_tracked(site, facts)
    ):
        severity = Severity.HINT
        why = (f"{why}; but nothing here tracks the tensor resized in an autodiff graph (it "
               "is made from data, or comes from outside into code of no module), so no "
               "backward pass runs through this call")  # fmt: skip
    trains = f"training signal: {signal.what}" if signal is not None else "no training signal"
    if signal is not None and signal.span is not None and signal.path is None:
        trains += f" on line {signal.span.start.row + 1}"
    message = (
        f"{_short(mode.variant)} has no backward kernel on cubecl backends ({trains}): {why}. "
        "Use InterpolateMode::Nearest, or keep this resize out of the autodiff graph."
        if signal is not None
        else f"{_short(mode.variant)} has no backward kernel on cubecl backends; {why}."
    )
    hover = (
        f"mode {_short(mode.variant)} ({mode.ops}) — {mode.variant.rsplit('::', 1)[0]}",
        f"{trains}; {why}" if signal is not None else why,
        "runtime panic: interpolate_backward kernel failed (…): Unsupported interpolation mode "
        f"(v0.21: {mode.ops.lower()} interpolation backward is not supported by JIT backend)",
    )
    evidence = [Related(facts.span(mode.name_node), f"mode {_short(mode.variant)} set here")]
    if signal is not None and signal.span is not None:
        evidence.append(Related(signal.span, f"this code trains: {signal.what}", signal.path))
    return Finding(
        rule=INFO.id,
        span=facts.span(site.name_node),
        severity=severity,
        message=message,
        evidence=tuple(evidence),
        fixes=(_nearest_fix(mode, facts),),
        path=facts.path,
        facts=hover,
    )


def _nearest_fix(mode: _Mode, facts: FileFacts) -> Fix:
    """Both enums call it `Nearest`; the edit swaps the variant name where it is written."""
    written = facts.text(mode.name_node)
    return Fix(
        id=f"{INFO.id}.nearest",
        title=(
            f"Switch {written} to Nearest (changes results: nearest-neighbour sampling "
            f"instead of {mode.ops.lower()})"
        ),
        edits=(Edit(facts.span(mode.name_node), "Nearest"),),
        preferred=False,
        behavior_change=True,
    )

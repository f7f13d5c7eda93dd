"""Run a rule file over one file's facts: find its `[[where]]` calls, bind their values, and
report a finding where the condition is definitely true (docs/rule-language.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from panic_lens.evaluate import frames_at, never_reached, shape_of, value_of
from panic_lens.model import Edit, Finding, Fix, HoverFact, Related, Severity
from panic_lens.rules.language import config_values as C
from panic_lens.rules.language import configs, structs  # noqa: F401 (registers the structs)
from panic_lens.rules.language import values as V
from panic_lens.rules.language.call_sites import renamed_wheres, rule_sites, sites
from panic_lens.rules.language.conditions import Failed, evaluate, holds, with_lengths
from panic_lens.rules.language.plan import Plan, plan_of
from panic_lens.rules.language.spec import HOLE, RuleSpec, Where
from panic_lens.rules.language.variants import variant_fields
from panic_lens.rules.language.versions import version_matches
from panic_lens.rules.language.viable import may_hold, reads_fields
from panic_lens.rust.crate import CUBECL_FEATURES
from panic_lens.rust.syntax import child_by_field, enclosing_function
from panic_lens.rust.testcode import in_should_panic_test, in_test_code

if TYPE_CHECKING:
    from panic_lens.evaluate.state import Frame
    from panic_lens.rules.meta import RuleInfo
    from panic_lens.rust.facts import CallSite, FileFacts
    from panic_lens.rust.syntax import Node

__all__ = ["detect", "recorded_failures"]

TENSOR = "burn::tensor::Tensor"

# Conditions that failed to evaluate (not unknown: an error), collected only while someone
# asks (`rules test`): the server, which never reads them, keeps none.
_RECORDERS: list[dict[str, list[str]]] = []


@contextmanager
def recorded_failures() -> Iterator[dict[str, list[str]]]:
    """Within the block, each failed condition as `path:line: reason`, by rule id."""
    found: dict[str, list[str]] = {}
    _RECORDERS.append(found)
    try:
        yield found
    finally:
        _RECORDERS.remove(found)


def _findings_only(facts: FileFacts) -> bool:
    """Only findings are read (`check`), and no one records the conditions that failed (`rules
    test` does): what gives no finding need not be worked out."""
    return facts.findings_only and not _RECORDERS


def _receiver_fits(where: Where, site: CallSite, plan: Plan, facts: FileFacts) -> bool:
    """Whether a method call's receiver can be what `where` needs, from the receiver's config
    or type found once per call (most rules share a method name, few its receiver)."""
    kind, path = plan.receivers[where]
    owners = plan.owners[where]
    found = _receiver(kind, site, facts, TENSOR in owners)
    return found == path if kind != "type" else found in owners


def _receiver(kind: str, site: CallSite, facts: FileFacts, tensor: bool) -> str | None:
    """The receiver's config path (`kind` "config" or "module") or type path ("type"); with
    `tensor`, a receiver of no known type is TENSOR when the evaluator follows its shape
    (through ops, helpers, fields). Without it that is not tried: the costly part, and most
    often in vain (most receivers of a common method name are no tensor the evaluator knows)."""
    key = ("language", "receiver", kind, site.node.id)
    found = facts.memo.get(key, key)
    if found is key:
        if kind == "config":  # the path alone: `_bind` folds the values of the rule's config
            found = C.config_path(site.receiver, facts)
        elif kind == "module":
            found = C.module_config_path(site.receiver, facts)
        else:
            typed = facts.type_of(site.receiver) if site.receiver is not None else None
            found = typed.path if typed is not None else None
        facts.memo[key] = found
    if found is None and tensor and kind == "type" and shape_of(site.receiver, facts) is not None:
        return TENSOR
    return found


@dataclass(slots=True)
class _Bound:
    """The values one call gives the condition, and where each came from."""

    data: dict[str, Any]
    origins: dict[str, V.Value]
    api: str
    lengths: dict[str, int]  # lists not in `data` whose length is known (`[batch, 3]`)
    label: str = ""  # the frame the values are of ("for k = 4", "when called as f(3) at ..")


def detect(info: RuleInfo, facts: FileFacts) -> Iterator[Finding | HoverFact]:
    spec = info.spec
    if spec is None or spec.hook is not None:
        return
    version = facts.crate.burn_version
    if spec.burn and version and version_matches(spec.burn, version) is False:
        return
    plan = plan_of(spec)
    by_name, renamed = sites(facts)
    findings_only = _findings_only(facts)
    for site in rule_sites(plan, by_name, renamed):
        wheres = plan.by_name.get(site.name) or renamed_wheres(site, plan)
        if findings_only and site.kind == "method" and not _may_fire(wheres, site, plan, facts):
            continue
        for where in wheres:
            method = site.kind == "method" and where.method_like
            if method and not _receiver_fits(where, site, plan, facts):
                continue
            bound = _bind(where, site, plan, facts)
            if bound is None:
                continue
            if bound is RULED_OUT or not _fires(spec, plan, bound):
                bound = _in_frames(spec, where, site, plan, facts) or bound
            if bound is not RULED_OUT and not (where.replaced_by and _replaced(where, site, facts)):
                yield from _judge(spec, where, site, bound, plan, facts)
            break


def _replaced(where: Where, site: CallSite, facts: FileFacts) -> bool:
    """Whether one of the `where`'s `replaced_by` methods is called on the call's result: up
    its method chain (a builder's other setters give it back), or on the local it is bound to,
    after the binding in its function (`options = options.with_source_size()`): what the call
    set never reaches the panic then."""
    node = site.node
    while (field := node.parent) is not None and field.type == "field_expression":
        call, method = field.parent, child_by_field(field, "field")
        name = facts.text(method) if method is not None else ""
        if name in where.replaced_by:
            return True
        if call is None or call.type != "call_expression":
            break
        node = call
    binding = node.parent
    if binding is None or binding.type not in ("let_declaration", "assignment_expression"):
        return False
    target = child_by_field(binding, "pattern" if binding.type == "let_declaration" else "left")
    if target is not None and target.type == "mut_pattern":
        target = target.named_children[0] if target.named_children else None
    function = enclosing_function(binding)
    if target is None or target.type != "identifier" or function is None:
        return False
    later = facts.src[binding.end_byte : function.end_byte]
    methods = b"|".join(re.escape(m.encode()) for m in where.replaced_by)
    local = re.escape(facts.text(target).encode())
    called = re.compile(rb"(?<![\w.])" + local + rb"\s*\.\s*(?:" + methods + rb")\s*\(")
    return called.search(later) is not None


def _may_fire(wheres: Sequence[Where], site: CallSite, plan: Plan, facts: FileFacts) -> bool:
    """Whether the condition may be true at a method call, from its plain arguments alone
    (`viable.may_hold`), in its own frame or one of `evaluate.frames_at` (a loop's element, a
    caller's arguments): when it cannot, nothing the receiver is changes that, and the
    receiver is not worked out."""
    methods = [where for where in wheres if where.method_like]
    if any(_may_hold(where, site.args, plan, facts, None) for where in methods):
        return True
    frames = call_frames(site.node, facts, site.args) if methods else []
    return any(_may_hold(w, site.args, plan, facts, f) for f in frames for w in methods)


def call_frames(node: Node, facts: FileFacts, about: Sequence[Node]) -> list[Frame]:
    """`evaluate.frames_at` a call (or an operator: `node`; its callers' frames when one of
    the `about` nodes names a parameter), without the frames of callers in test code when
    `node` itself is not in test code: a test that passes values that panic expects it (or
    fails where its author sees it); the code it calls is not wrong for that."""
    frames = frames_at(node, facts, about)
    if not any(f.call is not None for f in frames) or in_test_code(node, facts):
        return frames
    return [f for f in frames if f.call is None or not in_test_code(f.call, facts)]


def _may_hold(
    where: Where, args: Sequence[Node], plan: Plan, facts: FileFacts, frame: Frame | None
) -> bool:
    """`viable.may_hold` with the `where`'s arguments that are not a plain value at this call
    as the unknowns (a list of known length answers `size()` still); an argument the
    condition reads a field of (a tensor's `.dims`) is not evaluated here, and counts as
    maybe known."""
    condition = plan.unfolded[where]
    if condition is None:
        return True
    unknown: set[str] = set()
    lengths: dict[str, int] = {}
    for at, name in enumerate(where.args):
        if name == "_" or reads_fields(condition, name):
            continue
        if at >= len(args):
            unknown.add(name)
        elif value_of(args[at], facts, frame) is None:
            unknown.add(name)
            if (length := V.list_length(args[at], facts, frame)) is not None:
                lengths[name] = length
    if lengths:
        condition = with_lengths(condition, lengths)
    return may_hold(condition, frozenset(unknown))


def _fires(spec: RuleSpec, plan: Plan, bound: _Bound) -> bool:
    return spec.condition is None or holds(spec.condition, plan.names, bound.data,
                                           bound.lengths) is True  # fmt: skip


def _in_frames(
    spec: RuleSpec, where: Where, site: CallSite, plan: Plan, facts: FileFacts
) -> _Bound | None:
    """The call's values in the first of `evaluate.frames_at` (an element of the literal
    `for` loops around it, a call of its function with known arguments) at which the
    condition is true; None when there is none."""
    # the parts whose values a frame may give: the arguments, and the receiver (a config's
    # builder chain, a tensor whose shape a caller gives: `fn keep(s: Tensor<2>) { s.topk(..) }`)
    about = list(site.args)
    if site.receiver is not None:
        about.append(site.receiver)
    for frame in call_frames(site.node, facts, about):
        bound = _bind(where, site, plan, facts, frame)
        if bound is None or bound is RULED_OUT or not _fires(spec, plan, bound):
            continue
        if never_reached(site.node, facts, frame):
            continue  # a guard returns first with this frame's values (`if k > n { return; }`)
        bound.label = frame.label
        return bound
    return None


def _add_args(
    where: Where, args: Sequence[Node], names: Iterable[str], facts: FileFacts, bound: _Bound,
    plan: Plan, frame: Frame | None = None,
) -> None:  # fmt: skip
    """The values of the arguments `names` (of the `where`'s) into `bound`: its data and
    origins, or the length of a list whose items are not all known. An argument the rule takes
    the `size()` of is a list: a tensor the evaluator knows there (data whose items differ
    between branches) is not given for it."""
    for name in names:
        if name == "_" or name in bound.data or name in bound.lengths:
            continue
        at = where.args.index(name)
        if at >= len(args):
            continue
        value = value_of(args[at], facts, frame)
        if value is None and name not in plan.sized:
            value = V.tensor_value(args[at], facts, frame)
        if value is not None:
            bound.data[name] = value.value
            bound.origins[name] = value
        elif (length := V.list_length(args[at], facts, frame)) is not None:
            bound.lengths[name] = length


# `_bind`'s answer for a call of the `where`'s function at which the condition cannot be true
RULED_OUT = _Bound({}, {}, "", {})


def _bind(
    where: Where, site: CallSite, plan: Plan, facts: FileFacts, frame: Frame | None = None
) -> _Bound | None:
    """The call's values when `site` is a call of `where`'s burn function; else None.

    For `check` (`facts.findings_only`), which reads findings and no hovers: RULED_OUT as
    soon as a conjunct of the condition that reads only arguments and the config is not
    true (three-valued: an unknown conjunct leaves the condition unknown at best), before
    the other arguments, the receiver's shape and the rest are worked out."""
    args = site.args
    receiver = None
    config: C.ConfigValue | None = None
    owner = where.owner
    config_info = configs.table().config(owner) if where.method_like else None
    module_of = (
        configs.config_of_module(owner) if where.method_like and config_info is None else None
    )
    if site.kind == "method":
        if not where.method_like:
            return None
        receiver = site.receiver
        if config_info is not None:
            config = C.config_value(receiver, facts, frame=frame)
            if config is None or config.info.path != config_info.path:
                return None
        elif module_of is not None:
            config = C.module_config(receiver, facts, frame=frame)
            if config is None or config.info.path != module_of:
                return None
        else:
            owners = plan.owners[where]
            path = _receiver("type", site, facts, TENSOR in owners)
            if path is None or path not in owners:
                return None
    elif site.kind in ("path", "qualified"):
        if site.kind == "path" and site.resolves_to(plan.targets[where]) is None:
            return None
        qualified = (site.self_type, site.trait_path) if site.kind == "qualified" else ()
        if site.kind == "qualified" and not (set(qualified) & plan.owners[where]):
            return None  # `<T as Trait>::name(..)`: T or Trait must be the `where`'s owner
        if config_info is not None and where.name == "new":
            config = C.config_value(site.node, facts, frame=frame)  # `XConfig::new(..)` itself
        elif where.method_like and (config_info or module_of or len(args) == len(where.args) + 1):
            if not args:
                return None
            receiver, args = args[0], args[1:]
            if config_info is not None:
                config = C.config_value(receiver, facts, frame=frame)
            elif module_of is not None:
                config = C.module_config(receiver, facts, frame=frame)
    else:
        return None
    bound = _Bound({}, {}, where.call, {})
    data, origins, lengths = bound.data, bound.origins, bound.lengths
    if config is not None:
        data["config"] = {name: v.value for name, v in config.fields.items()}
        origins.update({f"config.{name}": v for name, v in config.fields.items()})
    elif config_info is not None or module_of is not None:
        data["config"] = {}
    if _findings_only(facts):
        for part, names in plan.arg_conjuncts[where]:
            _add_args(where, args, names, facts, bound, plan, frame)
            if holds(part, plan.names, data, lengths) is not True:
                return RULED_OUT
    # an argument nothing of the rule reads is not worked out (`&device`, `options`)
    _add_args(where, args, [a for a in where.args if a in plan.reads], facts, bound, plan, frame)
    condition = plan.unfolded[where]
    if _findings_only(facts) and condition is not None:
        unknown = frozenset(a for a in where.args if a != "_" and a not in data)
        if not may_hold(with_lengths(condition, lengths) if lengths else condition, unknown):
            return RULED_OUT  # the receiver, the result and the lets cannot make it true
    if receiver is not None and "receiver" in plan.reads:
        tensor = V.tensor_value(receiver, facts, frame)
        if tensor is not None:
            data["receiver"] = tensor.value
            origins["receiver"] = tensor
        elif (plain := value_of(receiver, facts, frame)) is not None and type(plain.value) is str:
            # a method of an enum called on one of its variants (`Initializer::Orthogonal {
            # .. }.init(..)`): a receiver whose type the `where` matched is no string else
            fields = variant_fields(receiver, facts)
            data["receiver"] = {
                "variant": plain.value,
                "fields": {k: v.value for k, v in fields.items()},
            }
            origins["receiver.variant"] = plain
            origins.update({f"receiver.fields.{k}": v for k, v in fields.items()})
    if "result" in plan.reads:
        result = V.result_value(site.node, facts, where.result_generic)
        if result is not None:
            data["result"] = result.value
            origins["result"] = result
    data["context"] = _context(facts, site, plan)
    for name, expr in where.lets:
        outcome = evaluate(expr, plan.names, data, lengths)
        if outcome is not None and not isinstance(outcome, Failed):
            data[name] = outcome
    return bound


def _context(facts: FileFacts, site: CallSite, plan: Plan) -> dict[str, Any]:
    crate = facts.crate
    backends = sorted(crate.backends)
    out: dict[str, Any] = {
        "backends": backends,
        "cubecl": bool(set(backends) & (CUBECL_FEATURES | {"cubecl"})),
    }
    if crate.burn_version:
        out["burn"] = crate.burn_version
    if "context" in plan.reads:
        out["training"] = bool(facts.training_signals())
        out["test"] = in_test_code(site.node, facts)
    return out


def _judge(
    spec: RuleSpec, where: Where, site: CallSite, bound: _Bound, plan: Plan, facts: FileFacts
) -> Iterator[Finding | HoverFact]:
    span = facts.span(site.name_node)
    if spec.condition is None:
        verdict: bool | Failed | None = True
    else:
        verdict = holds(spec.condition, plan.names, bound.data, bound.lengths)
    quiet = _findings_only(facts)  # a call that gives no finding needs no hover text
    if isinstance(verdict, Failed):
        where_failed = f"{facts.path or '<text>'}:{span.start.row + 1}: {verdict.reason}"
        for recorder in _RECORDERS:
            recorder.setdefault(spec.id, []).append(where_failed)
        if not quiet:
            known = _known_lines(bound, plan)
            yield HoverFact(
                spec.id, span, bound.api, (*known, f"condition not evaluated: {verdict.reason}")
            )
        return
    if verdict is not True:
        if not quiet:
            state = "unknown: some value is not known at this call" if verdict is None else "false"
            known = _known_lines(bound, plan)
            yield HoverFact(spec.id, span, bound.api, (*known, f"`{spec.condition}` is {state}"))
        return
    known = _known_lines(bound, plan)
    if never_reached(site.node, facts):
        yield HoverFact(spec.id, span, bound.api, (*known, "never reached: a guard before it "
                        "always returns"), flagged=False)  # fmt: skip
        return
    if in_should_panic_test(site.node, facts):
        expected = "panics here, as this #[should_panic] test expects"
        yield HoverFact(spec.id, span, bound.api, (*known, expected), flagged=False)
        return
    message = _fill(spec.message, plan, bound.data, bound.lengths) if spec.message else spec.title
    if bound.label:
        message = f"{message} ({bound.label})"
    if spec.fires:
        message = f"{message} (burn panics {spec.fires})"
    lines = (*known, *((bound.label,) if bound.label else ()), f"panics: {spec.summary}")
    yield HoverFact(spec.id, span, bound.api, lines, flagged=True)
    yield Finding(
        rule=spec.id,
        span=span,
        severity=_severity(spec, plan, bound),
        message=message,
        evidence=_evidence(bound, plan, facts),
        fixes=tuple(_fixes(spec, plan, bound, facts, site.node)),
        path=facts.path,
        facts=lines,
    )


def _read(bound: _Bound, plan: Plan) -> Iterator[tuple[str, V.Value]]:
    """The bound values the rule reads (in its condition, message, lets, severities, fixes),
    by name."""
    for name in sorted(bound.origins):
        if name in plan.reads or name.split(".", 1)[0] in plan.reads:
            yield name, bound.origins[name]


def _known_lines(bound: _Bound, plan: Plan) -> tuple[str, ...]:
    """One line per value the rule reads; a value reached in several steps (a shape through
    ops, a const through consts) is followed by how, one step a line."""
    out: list[str] = []
    for name, value in _read(bound, plan):
        steps = getattr(value, "steps", ())
        if len(steps) > 1:
            out.append(f"{name} = {show(value.value)}, reached by:")
            out += [f"  {step}" if i == 0 else f"  -> {step}" for i, step in enumerate(steps)]
        else:
            out.append(f"{name} = {show(value.value)}" + (f" ({value.note})" if value.note else ""))
    return tuple(out)


def _severity(spec: RuleSpec, plan: Plan, bound: _Bound) -> Severity:
    for rule in spec.severity_when:
        if holds(rule.when, plan.names, bound.data, bound.lengths) is True:
            return rule.severity
    return spec.severity


def _evidence(bound: _Bound, plan: Plan, facts: FileFacts) -> tuple[Related, ...]:
    out = []
    for name, value in _read(bound, plan):
        if value.origin is None:
            continue
        other = value.path if value.path is not None and value.path != facts.path else None
        out.append(Related(value.origin, f"{name} = {show(value.value)}: set here", other))
    return tuple(out)


def _fixes(
    spec: RuleSpec, plan: Plan, bound: _Bound, facts: FileFacts, call: Node
) -> Iterator[Fix]:
    if bound.label:
        return  # the values of one loop element or one caller: an edit here changes them all
    for index, fix in enumerate(spec.fixes):
        value = bound.origins.get(fix.replace)
        if value is None or value.written is None:
            continue  # a default nobody wrote, or a value from elsewhere: no guessed edit
        if _shared_edit(value, value.written, call):
            continue
        text = _fill(fix.with_, plan, bound.data, bound.lengths, unknown=None)
        if text is None:
            continue  # a hole that is not known (or null: the rule offers no fix here)
        edit = Edit(facts.span(value.written), text)
        yield Fix(
            f"{spec.id}.fix{index}", fix.title, (edit,),
            preferred=not fix.changes_behaviour, behavior_change=fix.changes_behaviour,
        )  # fmt: skip


def _shared_edit(value: V.Value, written: Node, call: Node) -> bool:
    """Whether the expression a fix would replace is in another function than the call's
    (a function that builds the config, a `From` impl) and gets the value from outside
    itself (`with_smoothing(Some(s))` with `s` its parameter, 10.0 at this call): the edit
    would change what every other call of that function builds."""
    function = enclosing_function(written)
    if function is None or function == enclosing_function(call):
        return False
    origin = value.origin
    inside = (
        origin is not None
        and value.path is None
        and (written.start_byte <= origin.start_byte and origin.end_byte <= written.end_byte)
    )
    return not inside


@overload
def _fill(
    template: str, plan: Plan, data: dict[str, Any], lengths: dict[str, int] | None = None
) -> str: ...
@overload
def _fill(
    template: str,
    plan: Plan,
    data: dict[str, Any],
    lengths: dict[str, int] | None,
    unknown: None,
) -> str | None: ...
def _fill(
    template: str,
    plan: Plan,
    data: dict[str, Any],
    lengths: dict[str, int] | None = None,
    unknown: str | None = "?",
) -> str | None:
    """`template` with its holes filled; a hole whose value is not known (or null) prints
    `unknown`, or makes the answer None when `unknown` is None (a fix's edit)."""
    missing = False

    def hole(found: re.Match[str]) -> str:
        nonlocal missing
        if found.group(1) is None:
            return found.group(0)[0]
        outcome = evaluate(found.group(1), plan.names, data, lengths)
        if outcome is None or isinstance(outcome, Failed):
            missing = True
            return unknown or ""
        return show(outcome)

    text = HOLE.sub(hole, template)
    return None if missing and unknown is None else text


def show(value: Any) -> str:
    """A value as the user wrote it: `[3, 64]`, `0.5`, `None`, `Same`."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict) and set(value) == {"dims", "numel", "rank", "dim"}:
        return f"shape {show(value['dims'])}"
    if isinstance(value, dict) and set(value) in ({"rank"}, {"rank", "dim"}):
        known = value.get("dim", {})
        dims = [str(known[i]) if i in known else "?" for i in range(value["rank"])]
        return f"a rank-{value['rank']} tensor" + (
            f" of shape [{', '.join(dims)}]" if known else ""
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return str(value)

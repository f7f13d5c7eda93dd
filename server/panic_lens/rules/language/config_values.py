"""Burn configs and modules in the user's code, as the rule language reads them: the fields of
the config an expression builds (`XConfig::new(..)`, `.with_f(..)`, struct literals, a function
of the file that builds one, through `let`s), its path alone (`config_path`: which config a
receiver is), the config a module was built from (`module_config`), and the module an
expression holds for the evaluator's `module.forward(x)` (registered as `"module"`). The
fields' values come from `evaluate`; a default of burn's table is read by `values.parse_default`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from panic_lens import evaluate
from panic_lens.evaluate.calls import body_exits, callee_fn, closure_call, frame_for
from panic_lens.evaluate.fields import field_sites
from panic_lens.evaluate.state import Frame, Value, register, state_of
from panic_lens.model import Span
from panic_lens.rules.language import configs
from panic_lens.rules.language.configs import ConfigInfo
from panic_lens.rules.language.values import (
    MAX_DEPTH,
    UNKNOWN,
    bound_local,
    default_value,
    memoised,
)
from panic_lens.rust.syntax import (
    Node,
    call_parts,
    child_by_field,
    method_call,
    path_call,
    span_of,
    strip_wrappers,
    struct_literal_parts,
)

if TYPE_CHECKING:
    from panic_lens.rust.facts import FileFacts

_MAX_HOPS = 8  # lets and clones followed back to a variant's payload


@dataclass(frozen=True, slots=True)
class ConfigValue:
    info: ConfigInfo
    fields: dict[str, Value]
    origin: Span


# --- configs --------------------------------------------------------------------------------


def config_value(
    expr: Node | None, facts: FileFacts, depth: int = 0, frame: Frame | None = None
) -> ConfigValue | None:
    """The fields of the burn config `expr` builds, as far as the file shows them; in `frame`
    (one of `evaluate.loop_frames`), with the loop's element or the caller's arguments."""
    if depth == 0 and expr is not None and frame is None:
        return memoised("config", expr, facts, lambda: _config_value(expr, facts, 0, None))
    return _config_value(expr, facts, depth, frame)


def _config_value(
    expr: Node | None, facts: FileFacts, depth: int, frame: Frame | None
) -> ConfigValue | None:
    expr = strip_wrappers(expr)
    if expr is None or depth > MAX_DEPTH:
        return None
    if expr.type == "identifier":
        bound = bound_local(expr, facts)
        return config_value(bound, facts, depth + 1, frame) if bound is not None else None
    if expr.type == "struct_expression":
        return _config_literal(expr, facts, depth, frame)
    if expr.type != "call_expression":
        return None
    parts = method_call(expr)
    if parts is not None:
        receiver, name_node, args = parts
        name = facts.text(name_node)
        if name == "clone" and not args:
            return config_value(receiver, facts, depth + 1, frame)
        inner = config_value(receiver, facts, depth + 1, frame)
        if inner is None or not name.startswith("with_") or len(args) != 1:
            return None
        field = inner.info.field(name.removeprefix("with_"))
        if field is None:
            return None
        value = evaluate.value_of(args[0], facts, frame)
        fields = dict(inner.fields)
        if value is None:
            fields.pop(field.name, None)
        else:
            fields[field.name] = _written(value, args[0])
        return ConfigValue(inner.info, fields, inner.origin)
    made = _config_new(expr, facts, frame)
    if made is not None:
        return made
    factory = _factory(expr, facts, frame)  # `make_cfg(5)` of `fn make_cfg(g) -> XConfig`
    return config_value(factory[0], facts, depth + 1, factory[1]) if factory else None


def _factory(call: Node, facts: FileFacts, frame: Frame | None) -> tuple[Node, Frame] | None:
    """A call of a function of this file whose one exit builds a burn config (`fn
    norm_config(c: usize) -> GroupNormConfig { GroupNormConfig::new(32, c) }`): that exit and
    the frame the function runs in at the call (its parameters as the call gives them)."""
    st = state_of(facts)
    fn = callee_fn(call, st)
    body = child_by_field(fn.node, "body") if fn is not None and fn.unit is st.unit else None
    exits = body_exits(body, facts.src) if body is not None else []
    if fn is None or len(exits) != 1:
        return None
    inner = frame_for(call, fn, st, frame or _NO_CALL, 0)
    return (exits[0], inner) if inner is not None else None


def config_path(expr: Node | None, facts: FileFacts) -> str | None:
    """The path of the burn config `expr` builds, without its fields' values: wherever
    `config_value(expr)` is a config, this is its path (the rules ask which config a
    receiver is at every `init` call, and fold the values only of the one they look at)."""
    if expr is None:
        return None
    return memoised("config-path", expr, facts, lambda: _config_path(expr, facts, 0))


def _config_path(expr: Node | None, facts: FileFacts, depth: int) -> str | None:
    """`config_path` at `depth` of `config_value`'s recursion (the same depth limit)."""
    while True:  # down the builder chain: `let`s, `.clone()`, `.with_x(v)`
        expr = strip_wrappers(expr)
        if expr is None or depth > MAX_DEPTH:
            return None
        parts = method_call(expr) if expr.type == "call_expression" else None
        if expr.type == "identifier":
            expr = bound_local(expr, facts)
        elif parts is not None and _builds_on(facts.text(parts[1]), parts[2]):
            expr = parts[0]
        else:
            break
        depth += 1
    if expr.type == "struct_expression":
        info = config_named(child_by_field(expr, "name"), facts)
    elif expr.type == "call_expression" and parts is None:
        info = _new_config(expr, facts)
        factory = _factory(expr, facts, None) if info is None else None
        if factory is not None:  # a function of the file that builds the config
            return _config_path(factory[0], facts, depth + 1)
    else:
        info = None
    return info.path if info is not None else None


def _builds_on(method: str, args: Sequence[Node]) -> bool:
    """A builder method that gives back a config of its receiver's type: `.clone()`, or
    `.with_x(v)` (which `config_value` reads only for a field `x` of that config)."""
    return (method == "clone" and not args) or (method.startswith("with_") and len(args) == 1)


def module_config_path(expr: Node | None, facts: FileFacts) -> str | None:
    """`module_config(expr)`'s path, without its fields' values (as `config_path`)."""
    if expr is None:
        return None

    def compute() -> str | None:
        found = _init_receiver(expr, facts, 0)
        return _config_path(found[0], facts, found[1]) if found is not None else None

    return memoised("module-path", expr, facts, compute)


def _written(value: Value, at: Node) -> Value:
    return Value(value.value, value.origin, at, value.note, value.path)


def _new_config(call: Node, facts: FileFacts) -> ConfigInfo | None:
    """The config of `XConfig::new(a, b)`, when its arguments are the required fields."""
    parts = path_call(call)
    if parts is None or facts.text(parts[1]) != "new":
        return None
    owner, _, args = parts
    info = config_named(owner, facts)
    return info if info is not None and len(info.required) == len(args) else None


def _config_new(call: Node, facts: FileFacts, frame: Frame | None) -> ConfigValue | None:
    """`XConfig::new(a, b)`: the required fields in order, the others their defaults."""
    info = _new_config(call, facts)
    if info is None:
        return None
    args = call_parts(call)[1]
    fields: dict[str, Value] = {}
    for field in info.fields:
        if field.option:
            fields[field.name] = Value(None, None, note="default None")
            continue
        parsed = default_value(field.default)
        if parsed is not UNKNOWN:
            fields[field.name] = Value(parsed, None, note=f"default {field.default}")
    for field, arg in zip(info.required, args, strict=True):
        value = evaluate.value_of(arg, facts, frame)
        if value is not None:
            fields[field.name] = _written(value, arg)
    for field in info.fields:  # `#[config(default = "kernel_size")]`: another field's value
        same = fields.get(field.default or "") if field.name not in fields else None
        if same is not None:
            fields[field.name] = Value(same.value, same.origin, None, f"default {field.default}")
    return ConfigValue(info, fields, span_of(call))


def _config_literal(
    expr: Node, facts: FileFacts, depth: int, frame: Frame | None
) -> ConfigValue | None:
    info = config_named(child_by_field(expr, "name"), facts)
    if info is None or child_by_field(expr, "body") is None:
        return None
    given, base_node = struct_literal_parts(expr, facts.text)
    base: ConfigValue | None = None
    if base_node is not None:
        base = config_value(base_node, facts, depth + 1, frame)
        if base is None:
            return None
    fields = dict(base.fields) if base is not None else {}
    for name, node in given.items():
        value = evaluate.value_of(node, facts, frame) if node is not None else None
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = _written(value, node) if node is not None else value
    return ConfigValue(info, fields, span_of(expr))


def config_named(type_node: Node | None, facts: FileFacts) -> ConfigInfo | None:
    """The burn config a written type name resolves to (a local type of the same name does
    not resolve to burn's)."""
    if type_node is None:
        return None
    if type_node.type == "generic_type":
        type_node = child_by_field(type_node, "type")
    if type_node is None:
        return None
    from panic_lens.rust import bindings

    return configs.table().config(bindings.type_of_type(type_node, facts))


def module_config(
    expr: Node | None, facts: FileFacts, depth: int = 0, frame: Frame | None = None
) -> ConfigValue | None:
    """The config a burn module was made from: `cfg.init(&device)`, through `let`s (in
    `frame`, as `config_value`)."""
    if depth == 0 and expr is not None and frame is None:
        return memoised("module", expr, facts, lambda: _module_config(expr, facts, 0, None))
    return _module_config(expr, facts, depth, frame)


def _module_config(
    expr: Node | None, facts: FileFacts, depth: int, frame: Frame | None
) -> ConfigValue | None:
    found = _init_receiver(expr, facts, depth)
    return config_value(found[0], facts, found[1], frame) if found is not None else None


def _init_receiver(expr: Node | None, facts: FileFacts, depth: int) -> tuple[Node, int] | None:
    """The config a module was made from (`cfg` of `cfg.init(&device)`, through `let`s and
    the methods that give back the module), with the depth reached there."""
    while True:
        expr = strip_wrappers(expr)
        if expr is None or depth > MAX_DEPTH:
            return None
        if expr.type == "identifier":
            expr, depth = bound_local(expr, facts), depth + 1
            continue
        if expr.type == "field_expression":  # `self.norm`: what the struct's one literal set
            sites = field_sites(expr, state_of(facts))
            expr = sites[0][0] if sites is not None and len(sites) == 1 else None
            depth += 1
            continue
        parts = method_call(expr) if expr.type == "call_expression" else None
        if parts is None:
            return None
        receiver, name_node, _ = parts
        name = facts.text(name_node)
        if name in ("clone", "to_device", "fork", "train", "no_grad") or name == "unwrap":
            expr, depth = receiver, depth + 1
            continue
        return (receiver, depth + 1) if name.startswith("init") else None


def _module_of(
    node: Node, facts: FileFacts, frame: Frame | None = None
) -> tuple[str, dict[str, Any]] | None:
    """(type path, known config fields) of the burn module `node` builds (in `frame`):
    `cfg.init(d)` of a config (through `let`s), or a module made without one (`Relu::new()`),
    for the evaluator's `module.forward(x)` (`evaluate.tensors`); through a closure bound by
    `let` that builds it (`let down = |c_in, c_out| Conv2dConfig::new(..).init(d);`, then
    `conv1: down(3, w)`), in the frame of that call."""
    closure = None
    if node.type == "call_expression":
        closure = closure_call(node, state_of(facts), frame or _NO_CALL, 0)
    if closure is not None:
        return _module_of(closure[0], facts, closure[1])
    config = module_config(node, facts, frame=frame)
    if config is not None and config.info.init is not None:
        options = {f.name for f in config.info.fields if f.option}
        return config.info.init, {  # a known `None` of an Option field is "None" there
            name: "None" if v.value is None and name in options else _with_payload(v, facts)
            for name, v in config.fields.items()
        }
    typed = facts.type_of(node)
    if typed is None or not typed.path.startswith("burn::") or "Config" in typed.path:
        return None
    return typed.path, {}


def _with_payload(value: Value, facts: FileFacts) -> Any:
    """A field's value, a tuple variant with its payload (`("Explicit", 1, 1, 1, 1)` for
    `PaddingConfig2d::Explicit(1, 1, 1, 1)`) when every argument is known: the ops table
    reads explicit paddings so; a condition reads the variant's name."""
    written = strip_wrappers(value.written)
    for _ in range(_MAX_HOPS):  # `padding.clone()` of `let padding = PaddingConfig1d::Explicit(..)`
        parts = method_call(written) if written is not None else None
        if parts is not None and facts.text(parts[1]) in ("clone", "into") and not parts[2]:
            written = strip_wrappers(parts[0])
        elif written is not None and written.type == "identifier":
            written = strip_wrappers(bound_local(written, facts))
        else:
            break
    if type(value.value) is not str or written is None or written.type != "call_expression":
        return value.value
    args = call_parts(written)[1]
    known = [evaluate.value_of(arg, facts) for arg in args]
    if not args or any(k is None for k in known):
        return value.value
    return (value.value, *(k.value for k in known if k is not None))


_NO_CALL = Frame()  # a question asked where no call is being followed


register("module", _module_of)

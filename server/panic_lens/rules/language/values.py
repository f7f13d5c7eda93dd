"""The values a rule reads at a call, as the rule language sees them (docs/rule-language.md):
an argument's value and a tensor's (from `evaluate`, the one evaluator of the user's code), the
rank a call's result is declared with, and burn configs built with `XConfig::new(..)`,
`.with_f(..)` and struct literals (their fields' values from `evaluate`). Unknown is None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from panic_lens import evaluate
from panic_lens.evaluate.calls import body_exits, callee_fn, closure_call, frame_for
from panic_lens.evaluate.fields import field_sites
from panic_lens.evaluate.literals import parse_int_literal
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import Frame, Value, register, state_of
from panic_lens.model import Span
from panic_lens.rules.language import configs
from panic_lens.rules.language.configs import ConfigInfo
from panic_lens.rules.language.defaults import constant_value
from panic_lens.rust.burn_api import TENSOR_SELF_METHODS, tensor_type_args
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

_MAX_DEPTH = 24
_MAX_HOPS = 8  # lets and clones followed back to a variant's payload
_FLOAT = re.compile(r"-?(?:\d[\d_]*\.[\d_]*(?:[eE][+-]?\d+)?|\d[\d_]*[eE][+-]?\d+|\d[\d_]*\.?)")
_SUFFIX = re.compile(r"(?:_?(?:u|i)(?:8|16|32|64|128|size)|_?f(?:32|64))$")
_VARIANT = re.compile(r"(?:[A-Za-z_]\w*::)*([A-Z][A-Za-z0-9]*)\s*(?:\{.*\}|\(.*\))?", re.S)
# Wrappers a config builder's `with_` value may be given in that keep its value.
_TRANSPARENT_CALLS = frozenset({"Some", "into", "clone", "to_owned"})


@dataclass(frozen=True, slots=True)
class ConfigValue:
    info: ConfigInfo
    fields: dict[str, Value]
    origin: Span


def _bound_value(ident: Node, facts: FileFacts) -> Node | None:
    """The expression a local was bound to, when nothing may have changed it since."""
    found = facts.binding(ident)
    return bound_value(ident, found, facts.src, facts.tree.root_node) if found else None


def tensor_value(node: Node | None, facts: FileFacts, frame: Frame | None = None) -> Value | None:
    """A tensor expression's value (`evaluate.tensor_of`: its rank, and its dims as far as
    they are known), else `{"rank": r}` from a declared type or a turbofish that states it. An
    array literal, or a local bound to one, is no tensor (the shape `[1, n]` an argument names
    is a list, known when its items are). `frame`: one of `evaluate.loop_frames`."""
    node = strip_wrappers(node)
    if node is None or _an_array(node, facts, 0):
        return None
    if frame is not None:
        return _tensor_value(node, facts, frame)
    return _memo("tensor", node, facts, lambda: _tensor_value(node, facts))


def _an_array(node: Node | None, facts: FileFacts, depth: int) -> bool:
    """An array literal (`vec![..]` included), directly or as what a local was bound to."""
    node = strip_wrappers(node)
    if node is None or depth > _MAX_DEPTH:
        return False
    if node.type == "identifier":
        binding = facts.binding(node)
        return binding is not None and _an_array(binding.value, facts, depth + 1)
    inner = _transparent(node, facts)
    if inner is not None:  # `xs.clone()`
        return _an_array(inner, facts, depth + 1)
    return node.type == "array_expression"


def _tensor_value(node: Node, facts: FileFacts, frame: Frame | None = None) -> Value | None:
    found = evaluate.tensor_of(node, facts, frame) or _declared_rank(node, facts, 0)
    if found is None:
        return None
    return Value(found.value, found.origin, node, found.note, found.path, found.shape,
                 found.steps)  # fmt: skip


_TURBOFISH = re.compile(r"(?:[\w:]*::)?Tensor\s*::\s*<(.*?)>\s*::\s*\w+", re.S)


def _declared_rank(node: Node | None, facts: FileFacts, depth: int) -> Value | None:
    """`{"rank": r}` for a tensor whose declared type, or its constructor's turbofish, states
    its rank as a number: a parameter, a `let x: Tensor<B, 3>`, `Tensor::<B, 3>::zeros(..)`,
    through `let`s and the methods that return `Self` (`TENSOR_SELF_METHODS`). (A rank is a
    type's: no later assignment changes it.)"""
    node = strip_wrappers(node)
    if node is None or depth > _MAX_DEPTH:
        return None
    found = method_call(node)
    if found is not None and facts.text(found[1]) in TENSOR_SELF_METHODS:
        return _declared_rank(found[0], facts, depth + 1)
    if node.type == "identifier":
        binding = facts.binding(node)
        if binding is None:
            return None
        if binding.type_node is not None:
            args = tensor_type_args(facts.text(binding.type_node))
            return _rank_value(args, binding.type_node)
        if binding.kind == "let":
            return _declared_rank(binding.value, facts, depth + 1)
        return None
    if node.type == "call_expression":
        callee = child_by_field(node, "function")
        if callee is not None and found is None:
            turbofish = _TURBOFISH.fullmatch(facts.text(callee).strip())
            args = tensor_type_args(f"Tensor<{turbofish.group(1)}>") if turbofish else None
            return _rank_value(args, callee)
    return None


def result_value(call: Node, facts: FileFacts, generic: int | None = None) -> Value | None:
    """`{"rank": r}` of the tensor a call returns, where the code states it: the call's own
    turbofish argument at position `generic` (`x.unsqueeze::<3>()`, `Tensor::stack::<3>(..)`),
    the constructor's turbofish (`Tensor::<B, 2>::ones(..)`), or the declared type of the
    `let` the call's value goes to (`let y: Tensor<B, 2> = Tensor::ones(..);`) or of the
    function that returns it (its body's tail expression, a `return`), also through methods
    that return `Self` (`TENSOR_SELF_METHODS`: `let y: Tensor<B, 2> = x.flatten(0, 1).clone();`)."""
    return _memo(("result", generic), call, facts, lambda: _result_value(call, facts, generic))


def _result_value(call: Node, facts: FileFacts, generic: int | None) -> Value | None:
    if generic is not None:
        found = _turbofish_rank(call, facts, generic)
        if found is not None:
            return found
    if method_call(call) is None:
        found = _declared_rank(call, facts, 0)
        if found is not None:
            return found
    node = call
    for _ in range(_MAX_DEPTH):
        parent = node.parent
        while parent is not None and parent.type in _WRAPPERS:
            node, parent = parent, parent.parent
        if parent is None:
            return None
        if parent.type == "let_declaration":
            if child_by_field(parent, "value") != node:
                return None
            kind = child_by_field(parent, "type")
            return _rank_value(tensor_type_args(facts.text(kind)), kind) if kind else None
        if parent.type in ("block", "return_expression"):
            return _returned_rank(parent, node, facts)
        outer = parent.parent if parent.type == "field_expression" else None
        method = method_call(outer) if outer is not None else None
        if outer is None or method is None or method[0] != node:
            return None
        if facts.text(method[1]) not in TENSOR_SELF_METHODS:
            return None
        node = outer  # `node.method(..)` of the same rank
    return None


_WRAPPERS = frozenset({"parenthesized_expression", "reference_expression", "try_expression"})


def _returned_rank(parent: Node, node: Node, facts: FileFacts) -> Value | None:
    """The rank the function's declared return type states, for a value it returns: the tail
    expression of its body, or a `return` (not one of a closure)."""
    if parent.type == "block":
        last = [c for c in parent.named_children if "comment" not in c.type]
        fn = parent.parent
        if not last or last[-1] != node or fn is None or fn.type != "function_item":
            return None
    else:
        fn = parent.parent
        while fn is not None and fn.type not in ("function_item", "closure_expression"):
            fn = fn.parent
        if fn is None or fn.type != "function_item":
            return None
    kind = child_by_field(fn, "return_type")
    return _rank_value(tensor_type_args(facts.text(kind)), kind) if kind else None


def _turbofish_rank(call: Node, facts: FileFacts, generic: int) -> Value | None:
    """The integer the call's own turbofish gives at position `generic` (`::<3, _>`)."""
    callee = child_by_field(call, "function")
    if callee is None or callee.type != "generic_function":
        return None
    kinds = child_by_field(callee, "type_arguments")
    given = [a for a in kinds.named_children if "comment" not in a.type] if kinds else []
    if generic >= len(given):
        return None
    arg = given[generic]
    rank = evaluate.value_of(arg, facts)  # `::<RANK>`: a const generic argument names a const
    if rank is None or type(rank.value) is not int:
        return None
    return Value({"rank": rank.value}, span_of(arg), note="its turbofish")


def _rank_value(args: list[str] | None, where: Node) -> Value | None:
    """The rank a Tensor type's generic arguments state: its one integer argument (the
    backend, a rank named by a const, the kind are not numbers)."""
    if args is None:
        return None
    numbers = [a for a in args if a.isdigit()]
    if len(numbers) != 1:
        return None
    return Value({"rank": int(numbers[0])}, span_of(where), note="its type")


def list_length(node: Node | None, facts: FileFacts, depth: int = 0) -> int | None:
    """The length of a list written as an array (`[batch, 3]`, `vec![x; 4]`), directly or
    through a `let` nothing may change, whatever its items are."""
    node = strip_wrappers(node)
    if node is None or depth > _MAX_DEPTH:
        return None
    if node.type == "identifier":
        return list_length(_bound_value(node, facts), facts, depth + 1)
    inner = _transparent(node, facts)
    if inner is not None:  # `xs.clone()`
        return list_length(inner, facts, depth + 1)
    if node.type != "array_expression":
        return None
    length = child_by_field(node, "length")
    if length is not None:  # `[x; n]`
        count = evaluate.int_of(length, facts)
        return count.value if count is not None and count.value >= 0 else None
    return len([c for c in node.named_children if "comment" not in c.type])


def _transparent(node: Node, facts: FileFacts) -> Node | None:
    """The receiver of `x.clone()` and the other calls that give back their receiver's
    value (`_TRANSPARENT_CALLS`), else None."""
    found = method_call(node)
    if found is None or found[2] or facts.text(found[1]) not in _TRANSPARENT_CALLS:
        return None
    return found[0]


_UNKNOWN = object()


def parse_default(text: str) -> Any:
    """The value of a default expression of burn's config table (`1`, `1e-5`, `[1, 1]`,
    `true`, `"PaddingConfig2d::Valid"`, `None`, constant arithmetic such as `1.0 / 3.0`, which
    Rust computes at compile time); `_UNKNOWN` for anything else."""
    found = _literal(text)
    if found is not _UNKNOWN:
        return found
    computed = constant_value(text, _number)
    return _UNKNOWN if computed is None else computed


def _number(text: str) -> Any:
    """A number literal of a constant default expression, or None."""
    found = _literal(text)
    return found if type(found) in (int, float) else None


def _literal(text: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text == "None":
        return None
    digits = text.removeprefix("-")
    number = parse_int_literal(digits) if digits[:1].isdigit() else None
    if number is not None:  # the consts' reading of an integer literal (suffixes, 0x, `_`)
        return -number if text.startswith("-") else number
    if _FLOAT.fullmatch(_SUFFIX.sub("", text)):
        return float(_SUFFIX.sub("", text).replace("_", ""))
    if text.startswith("Some(") and text.endswith(")"):
        return parse_default(text[5:-1])
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        if ";" in inner:
            item, _, count = inner.rpartition(";")
            value, n = parse_default(item), parse_default(count)
            return (
                [value] * n
                if value is not _UNKNOWN and isinstance(n, int) and 0 <= n <= 64
                else _UNKNOWN
            )
        parts = [parse_default(p) for p in _split(inner)] if inner else []
        return _UNKNOWN if any(p is _UNKNOWN for p in parts) else parts
    found = _VARIANT.fullmatch(text)
    if found and "::" in text.split("{")[0].split("(")[0]:
        owner = text.split("{")[0].split("(")[0].rsplit("::", 2)
        if len(owner) >= 2 and owner[-2][:1].isupper():
            return found.group(1)
    return _UNKNOWN


def _split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def default_value(default: str | None) -> Any:
    return _UNKNOWN if default is None else parse_default(default)


# --- configs --------------------------------------------------------------------------------


def _memo(kind: object, node: Node, facts: FileFacts, compute: Any) -> Any:
    """`compute()` once per (facts, node): every rule over the same `init` call asks the same
    question about its receiver."""
    key = ("language", kind, node.id)
    if key not in facts.memo:
        facts.memo[key] = compute()
    return facts.memo[key]


def config_value(
    expr: Node | None, facts: FileFacts, depth: int = 0, frame: Frame | None = None
) -> ConfigValue | None:
    """The fields of the burn config `expr` builds, as far as the file shows them; in `frame`
    (one of `evaluate.loop_frames`), with the loop's element or the caller's arguments."""
    if depth == 0 and expr is not None and frame is None:
        return _memo("config", expr, facts, lambda: _config_value(expr, facts, 0, None))
    return _config_value(expr, facts, depth, frame)


def _config_value(
    expr: Node | None, facts: FileFacts, depth: int, frame: Frame | None
) -> ConfigValue | None:
    expr = strip_wrappers(expr)
    if expr is None or depth > _MAX_DEPTH:
        return None
    if expr.type == "identifier":
        bound = _bound_value(expr, facts)
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
    return _memo("config-path", expr, facts, lambda: _config_path(expr, facts, 0))


def _config_path(expr: Node | None, facts: FileFacts, depth: int) -> str | None:
    """`config_path` at `depth` of `config_value`'s recursion (the same depth limit)."""
    while True:  # down the builder chain: `let`s, `.clone()`, `.with_x(v)`
        expr = strip_wrappers(expr)
        if expr is None or depth > _MAX_DEPTH:
            return None
        parts = method_call(expr) if expr.type == "call_expression" else None
        if expr.type == "identifier":
            expr = _bound_value(expr, facts)
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

    return _memo("module-path", expr, facts, compute)


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
        if parsed is not _UNKNOWN:
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
        return _memo("module", expr, facts, lambda: _module_config(expr, facts, 0, None))
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
        if expr is None or depth > _MAX_DEPTH:
            return None
        if expr.type == "identifier":
            expr, depth = _bound_value(expr, facts), depth + 1
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
            written = strip_wrappers(_bound_value(written, facts))
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

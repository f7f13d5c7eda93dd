"""The values a rule reads at a call, as the rule language sees them (docs/rule-language.md):
an argument's value and a tensor's (from `evaluate`, the one evaluator of the user's code), the
rank a call's result is declared with, a list's length, and the defaults of burn's config table
(`parse_default`). The configs the user's code builds are `config_values`'. Unknown is None.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from panic_lens import evaluate
from panic_lens.evaluate.literals import block_tail, parse_int_literal
from panic_lens.evaluate.locals import bound_value
from panic_lens.evaluate.state import Frame, Value
from panic_lens.rules.language.defaults import constant_value
from panic_lens.rust.burn_api import TENSOR_SELF_METHODS, tensor_type_args
from panic_lens.rust.syntax import (
    Node,
    child_by_field,
    method_call,
    span_of,
    strip_wrappers,
)

if TYPE_CHECKING:
    from panic_lens.rust.facts import FileFacts

MAX_DEPTH = 24  # lets and builder chains followed (here and in `config_values`)
_FLOAT = re.compile(r"-?(?:\d[\d_]*\.[\d_]*(?:[eE][+-]?\d+)?|\d[\d_]*[eE][+-]?\d+|\d[\d_]*\.?)")
_SUFFIX = re.compile(r"(?:_?(?:u|i)(?:8|16|32|64|128|size)|_?f(?:32|64))$")
_VARIANT = re.compile(r"(?:[A-Za-z_]\w*::)*([A-Z][A-Za-z0-9]*)\s*(?:\{.*\}|\(.*\))?", re.S)
# Wrappers a config builder's `with_` value may be given in that keep its value.
_TRANSPARENT_CALLS = frozenset({"Some", "into", "clone", "to_owned"})


def bound_local(ident: Node, facts: FileFacts) -> Node | None:
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
    return memoised("tensor", node, facts, lambda: _tensor_value(node, facts))


def _an_array(node: Node | None, facts: FileFacts, depth: int) -> bool:
    """An array literal (`vec![..]` included), directly or as what a local was bound to."""
    node = strip_wrappers(node)
    if node is None or depth > MAX_DEPTH:
        return False
    if node.type == "identifier":
        binding = facts.binding(node)
        return binding is not None and _an_array(binding.value, facts, depth + 1)
    inner = _transparent(node, facts)
    if inner is not None:  # `xs.clone()`
        return _an_array(inner, facts, depth + 1)
    if node.type in _BRANCHING:  # `if flag { vec![1.0, 0.0] } else { vec![0.0, 1.0] }`
        tails = _tails(node, depth)
        return bool(tails) and all(_an_array(tail, facts, depth + 1) for tail in tails)
    return node.type == "array_expression"


_BRANCHING = frozenset({"if_expression", "match_expression", "block"})


def _tails(node: Node, depth: int) -> list[Node]:
    """The expressions an `if`, `match` or block can evaluate to (each branch's, each arm's,
    the block's tail); empty when one of them has none (an `if` without `else`, a block that
    ends in a statement), so that "every branch is X" is not said of no branch."""
    if depth > MAX_DEPTH:
        return []
    branches: list[Node | None]
    if node.type == "block":
        branches = [block_tail(node)]
    elif node.type == "if_expression":
        branches = [child_by_field(node, "consequence")]
        alternative = child_by_field(node, "alternative")  # an `else` clause
        branches.append(alternative.named_children[-1] if alternative is not None else None)
    else:
        body = child_by_field(node, "body")
        arms = [c for c in body.named_children if c.type == "match_arm"] if body else []
        branches = [child_by_field(arm, "value") for arm in arms] or [None]
    found: list[Node] = []
    for branch in branches:
        if branch is None:
            return []
        inner = _tails(branch, depth + 1) if branch.type in _BRANCHING else [branch]
        if not inner:
            return []
        found += inner
    return found


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
    if node is None or depth > MAX_DEPTH:
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
    return memoised(("result", generic), call, facts, lambda: _result_value(call, facts, generic))


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
    for _ in range(MAX_DEPTH):
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


def list_length(node: Node | None, facts: FileFacts, frame: Frame | None = None) -> int | None:
    """The length of a list, whatever its items are (`evaluate.length_of`)."""
    return evaluate.length_of(strip_wrappers(node), facts, frame)


def _transparent(node: Node, facts: FileFacts) -> Node | None:
    """The receiver of `x.clone()` and the other calls that give back their receiver's
    value (`_TRANSPARENT_CALLS`), else None."""
    found = method_call(node)
    if found is None or found[2] or facts.text(found[1]) not in _TRANSPARENT_CALLS:
        return None
    return found[0]


UNKNOWN = object()


def parse_default(text: str) -> Any:
    """The value of a default expression of burn's config table (`1`, `1e-5`, `[1, 1]`,
    `true`, `"PaddingConfig2d::Valid"`, `None`, constant arithmetic such as `1.0 / 3.0`, which
    Rust computes at compile time); `UNKNOWN` for anything else."""
    found = _literal(text)
    if found is not UNKNOWN:
        return found
    computed = constant_value(text, _number)
    return UNKNOWN if computed is None else computed


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
                if value is not UNKNOWN and isinstance(n, int) and 0 <= n <= 64
                else UNKNOWN
            )
        parts = [parse_default(p) for p in _split(inner)] if inner else []
        return UNKNOWN if any(p is UNKNOWN for p in parts) else parts
    found = _VARIANT.fullmatch(text)
    if found and "::" in text.split("{")[0].split("(")[0]:
        owner = text.split("{")[0].split("(")[0].rsplit("::", 2)
        if len(owner) >= 2 and owner[-2][:1].isupper():
            return found.group(1)
    return UNKNOWN


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
    return UNKNOWN if default is None else parse_default(default)


def memoised(kind: object, node: Node, facts: FileFacts, compute: Any) -> Any:
    """`compute()` once per (facts, node): every rule over the same `init` call asks the same
    question about its receiver."""
    key = ("language", kind, node.id)
    if key not in facts.memo:
        facts.memo[key] = compute()
    return facts.memo[key]

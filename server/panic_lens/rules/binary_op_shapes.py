"""binary-op-incompatible-shapes: an element-wise op between two tensors whose dims neither
match nor broadcast.

burn's `add`, `sub`, `mul`, `div` (and the operators `+ - * /` between two tensors, whose
`core::ops` impls call them), `equal`, `not_equal`, `greater`, `greater_equal`, `lower` and
`lower_equal` run `TensorCheck::binary_ops_ew`: for each dim where the two sizes differ and
neither is 1, a reason is registered, and the check panics at the call on every backend. The
ranks are equal by the type; a scalar operand (`x + 1.0`, `add_scalar`) is never checked, nor
is `%` (`remainder` has no check). burn's MSE, Huber, Lp and SmoothL1 losses begin their forward
with such a `sub` between their two tensors: the same panic, inside the loss.

A hook, not a rule in the language: the language finds calls, and most of these panics are
written as operators. Only dims the evaluator knows as numbers on both sides count: a run-time
dim (a `Sym`) or an unknown one keeps the pair silent.
"""

from __future__ import annotations

from collections.abc import Iterator

from panic_lens import evaluate
from panic_lens.evaluate import Value
from panic_lens.evaluate.shapes import is_int
from panic_lens.evaluate.state import MAX_DEPTH
from panic_lens.model import Finding, HoverFact, Related, Severity
from panic_lens.rules.language import config_values as C
from panic_lens.rules.language.detect import call_frames
from panic_lens.rules.meta import BINARY_OPS as INFO
from panic_lens.rust.facts import CallSite, FileFacts
from panic_lens.rust.lexical import WORD_BYTES
from panic_lens.rust.syntax import Node, child_by_field, nodes_of_kinds
from panic_lens.rust.testcode import in_should_panic_test, in_test_code

__all__ = ["INFO", "detect"]

TENSOR = "burn::tensor::Tensor"
# burn's method and the operation name its check prints
METHODS = {
    "add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "equal": "Equal",
    "not_equal": "NotEqual", "greater": "Greater", "greater_equal": "Greater_equal",
    "lower": "Lower", "lower_equal": "Lower_equal",
}  # fmt: skip
OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_PATHS = frozenset(f"{TENSOR}::{name}" for name in METHODS)
# burn's losses whose forward begins with `sub` between its two tensors (the panic fires inside
# the loss): by the loss's type, or the config its module is made from, the methods and which
# argument is the lhs and which the rhs (crates/burn-nn/src/loss/{mse,huber,smooth_l1,lp_loss}.rs)
_FORWARD = frozenset({"forward", "forward_no_reduction"})
LOSSES: dict[str, tuple[frozenset[str], int, int]] = {
    "burn::nn::loss::MseLoss": (_FORWARD, 0, 1),  # logits.sub(targets)
    "burn::nn::loss::HuberLossConfig": (_FORWARD, 1, 0),  # targets - predictions
    "burn::nn::loss::LpLossConfig": (_FORWARD, 0, 1),  # predictions.sub(targets)
    "burn::nn::loss::SmoothL1LossConfig": (
        frozenset({"forward", "forward_with_reduction", "forward_reduce_dims"}), 0, 1
    ),
}  # fmt: skip
_LOSS_METHODS = frozenset().union(*(methods for methods, _, _ in LOSSES.values()))
_METHOD_NAMES = frozenset(METHODS)
_CALL_NAMES = _METHOD_NAMES | _LOSS_METHODS
# A loss's receiver has its type only where the file names the loss or its config (a type
# written in the file, or the config a local is built from): without one of these words, the
# `forward`s are not looked at (`forward` is the commonest call of model code)
_LOSS_WORDS = tuple(
    dict.fromkeys(path.rsplit("::", 1)[-1].removesuffix("Config").encode() for path in LOSSES)
)
# Words without which no dim is known as a number here: the shape words of the prefilter
# groups (their other word is `Tensor`, which the prefilter also finds through crate aliases).
_TRIGGERS = tuple(dict.fromkeys(group[-1].rstrip("(").encode() for group in INFO.prefilter_groups))


def detect(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    functions = _sizing_functions(facts)
    if not functions:
        return
    names = _CALL_NAMES if any(word in facts.src for word in _LOSS_WORDS) else _METHOD_NAMES
    for site in facts.calls(names):
        if site.name in METHODS:
            operands = _call_operands(site) if _inside(site.node, functions) else None
            if operands is not None:
                yield from _judge(site.node, site.name_node, site.name, *operands, facts)
        # a loss's forward anywhere in the file (a few calls, each of a named loss): its inputs
        # are most often a model's output and targets made elsewhere
        elif (loss := _loss_operands(site, facts)) is not None:
            yield from _judge(site.node, site.name_node, "sub", loss[0], loss[1], facts, loss[2])
    for lo, hi in functions:
        for node in _binary_expressions(facts, lo, hi):
            op = child_by_field(node, "operator")
            name = OPERATORS.get(facts.text(op)) if op is not None else None
            left, right = child_by_field(node, "left"), child_by_field(node, "right")
            if name is None or op is None or left is None or right is None:
                continue
            if not (_never_a_tensor(left, facts) or _never_a_tensor(right, facts)):
                yield from _judge(node, op, name, left, right, facts)


_BINARY = frozenset({"binary_expression"})


def _sizing_functions(facts: FileFacts) -> list[tuple[int, int]]:
    """The byte ranges of the functions (in `facts.only`) that write one of the words a
    numeric dim comes from (a constructor, data, a reshape): operands are evaluated only
    there (a loss's in any function of a file with one, as the prefilter keeps such files).
    Evaluating every `a * b` of generic tensor code, whose dims are never numbers, cost a
    fifth of a cold check of burn's repository."""
    lo, hi = facts.only if facts.only is not None else (0, len(facts.src))
    found: dict[int, tuple[int, int]] = {}
    for word in _TRIGGERS:
        at = facts.src.find(word, lo, hi)
        while at >= 0:
            if at > 0 and facts.src[at - 1] in WORD_BYTES:  # `clones`, not `ones`
                at = facts.src.find(word, at + len(word), hi)
                continue
            function = _function_around(facts, at, at + len(word))
            if function is not None and function.id not in found:
                found[function.id] = (max(lo, function.start_byte), min(hi, function.end_byte))
            after = function.end_byte if function is not None else at + len(word)
            at = facts.src.find(word, max(after, at + len(word)), hi)
    spans = sorted(found.values())
    # a function inside another one's range is walked with it
    return [span for i, span in enumerate(spans)
            if not any(o[0] <= span[0] and span[1] <= o[1] for o in spans[:i])]  # fmt: skip


def _function_around(facts: FileFacts, lo: int, hi: int) -> Node | None:
    """The innermost `fn` item around bytes [lo, hi), found from the root down (walking up
    with `parent` costs the depth at each step: minutes under 10,000 nested modules)."""
    around = [
        f
        for f in nodes_of_kinds(facts.tree.root_node, _FUNCTION, lo, hi)
        if f.start_byte <= lo and hi <= f.end_byte
    ]
    return max(around, key=lambda f: f.start_byte, default=None)


_FUNCTION = frozenset({"function_item"})


def _inside(node: Node, spans: list[tuple[int, int]]) -> bool:
    return any(lo <= node.start_byte and node.end_byte <= hi for lo, hi in spans)


# Operands that are never a tensor, told by their syntax (most `a * b` are numbers'): a
# literal, a cast, an index (`dims[1]`), a range, a macro's value.
_NUMERIC_KINDS = frozenset(
    {"integer_literal", "float_literal", "type_cast_expression", "index_expression",
     "range_expression", "macro_invocation"}
)  # fmt: skip


def _never_a_tensor(node: Node, facts: FileFacts) -> bool:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type in _NUMERIC_KINDS:
        return True
    # a SCREAMING_CASE name is a const or a static, never a tensor
    return node.type == "identifier" and facts.text(node).isupper()


def _binary_expressions(facts: FileFacts, lo: int, hi: int) -> Iterator[Node]:
    """The binary expressions in bytes [lo, hi), but none that is an operand of `MAX_DEPTH`
    binary expressions in a row (`a + b + .. + z` nests to the left): no shape is known that
    deep (the evaluator gives up there), and a name looked up from so deep walks every level
    above it (a 10,000-term sum took minutes). Depths are counted from the outer expressions
    down (a node's `parent` is found from the root: as costly as the depth)."""
    found = nodes_of_kinds(facts.tree.root_node, _BINARY, lo, hi)
    chained: dict[int, int] = {}
    for node in sorted(found, key=lambda n: (n.start_byte, -n.end_byte)):
        depth = chained.pop(node.id, 0)
        for side in ("left", "right"):
            child = child_by_field(node, side)
            while child is not None and child.type == "parenthesized_expression":
                child = child.named_children[0] if child.named_child_count else None
            if child is not None and child.type == "binary_expression":
                chained[child.id] = depth + 1
        if depth < MAX_DEPTH:
            yield node


def _call_operands(site: CallSite) -> tuple[Node, Node] | None:
    """`lhs.add(rhs)`, or `Tensor::add(lhs, rhs)` by burn's path."""
    if site.kind == "method" and site.receiver is not None and len(site.args) == 1:
        return site.receiver, site.args[0]
    if site.kind == "path" and len(site.args) == 2 and site.resolves_to(_PATHS) is not None:
        return site.args[0], site.args[1]
    return None


def _loss_operands(site: CallSite, facts: FileFacts) -> tuple[Node, Node, str] | None:
    """The lhs and rhs of the `sub` a burn loss's forward begins with, and the API."""
    if site.kind != "method" or site.receiver is None:
        return None
    typed = facts.type_of(site.receiver)
    path = typed.path if typed is not None else None
    if path not in LOSSES:
        path = C.module_config_path(site.receiver, facts)
    if path is None or path not in LOSSES:
        return None
    methods, lhs, rhs = LOSSES[path]
    if site.name not in methods or len(site.args) <= max(lhs, rhs):
        return None
    api = f"{path.removesuffix('Config')}::{site.name}"
    return site.args[lhs], site.args[rhs], api


def _judge(
    node: Node, name_node: Node, name: str, left: Node, right: Node, facts: FileFacts,
    api: str | None = None,
) -> Iterator[Finding | HoverFact]:  # fmt: skip
    found = _operands(node, left, right, facts)
    if found is None:
        return
    lhs, rhs, label = found
    clashes = _clashes(_dims(lhs), _dims(rhs))
    if not clashes and facts.findings_only:
        return  # `check` reads findings only: no hover text for a pair that broadcasts
    span = facts.span(name_node)
    inside = f" inside {api.removeprefix('burn::nn::loss::')}" if api is not None else ""
    api = api or f"{TENSOR}::{name}"
    lines: tuple[str, ...] = (f"lhs: {_shape_text(lhs)}", f"rhs: {_shape_text(rhs)}")
    if not clashes or in_should_panic_test(node, facts) or evaluate.never_reached(node, facts):
        yield HoverFact(INFO.id, span, api, lines)
        return
    yield HoverFact(INFO.id, span, api, lines, flagged=True)
    dims = ", ".join(f"dim {i}: {a} != {b}" for i, a, b in clashes)
    message = (
        f"{METHODS[name]}{inside} of a {_shape_text(lhs)} tensor and a {_shape_text(rhs)} tensor: "
        f"{dims}, neither is 1, so the shapes do not broadcast (burn's "
        'binary_ops_ew check panics: "The provided tensors have incompatible shapes")'
    )
    if label:
        message, lines = f"{message} ({label})", (*lines, label)
    severity = Severity.HINT if in_test_code(node, facts) else INFO.default_severity
    evidence = tuple(
        Related(value.origin, f"{side} = {_shape_text(value)}: set here")
        for side, value in (("lhs", lhs), ("rhs", rhs))
        if value.origin is not None and value.path in (None, facts.path)
    )
    steps = tuple(f"{side}: {step}" for side, v in (("lhs", lhs), ("rhs", rhs)) for step in v.steps)
    yield Finding(INFO.id, span, severity, message, evidence, facts=lines + steps)


def _operands(
    node: Node, left: Node, right: Node, facts: FileFacts
) -> tuple[Value, Value, str] | None:
    """The two operands' tensor values where the op is written, and the frame's label ("");
    when they do not clash there and a dim of either is not known, their values in the first
    of `call_frames` (a literal loop's element, a caller's arguments: `fn norm(x: Tensor<4>)
    { x - mean }` called with a [8, 3, 32, 32] image) where they clash, with its label. None
    when the lhs is no tensor with a dim that can clash, or the rhs no tensor of known rank."""
    lhs = evaluate.tensor_of(left, facts)
    rhs = evaluate.tensor_of(right, facts) if _dims(lhs) is not None else None
    top = _pair(lhs, rhs, "")
    if top is not None and _clashes(_dims(lhs), _dims(rhs)):
        return top
    if not (_partly_known(_dims(lhs)) or _partly_known(_dims(rhs))) or _dims(rhs) is None:
        return top  # every dim known (no frame changes one), or the rhs a scalar or unknown
    for frame in call_frames(node, facts, (left, right)):
        found = _pair(evaluate.tensor_of(left, facts, frame),
                      evaluate.tensor_of(right, facts, frame), frame.label)  # fmt: skip
        clash = found is not None and _clashes(_dims(found[0]), _dims(found[1]))
        if found is not None and clash and not evaluate.never_reached(node, facts, frame):
            return found  # (a guard that returns first with this frame's values: not this one)
    return top


def _pair(lhs: Value | None, rhs: Value | None, label: str) -> tuple[Value, Value, str] | None:
    """The operands when the lhs is a tensor with a dim that can clash and the rhs a tensor of
    known rank."""
    if lhs is None or rhs is None or not _sized(_dims(lhs)) or _dims(rhs) is None:
        return None
    return lhs, rhs, label


def _dims(value: Value | None) -> tuple[object, ...] | None:
    return value.shape.dims if value is not None and value.shape is not None else None


def _partly_known(dims: tuple[object, ...] | None) -> bool:
    """A tensor of known rank with a dim that is not a known number (a frame may know it)."""
    return dims is not None and not all(is_int(d) for d in dims)


def _sized(dims: tuple[object, ...] | None) -> bool:
    """Some dim is a known number other than 1 (only such a dim can fail to broadcast)."""
    return dims is not None and any(is_int(d) and d != 1 for d in dims)


def _clashes(
    lhs: tuple[object, ...] | None, rhs: tuple[object, ...] | None
) -> list[tuple[int, int, int]]:
    """Each dim where both sizes are known numbers that differ and neither is 1 (burn's
    `binary_ops_ew_shape`); none when the ranks differ (the evaluator lost track) or a rank is
    not known."""
    if lhs is None or rhs is None or len(lhs) != len(rhs):
        return []
    out = []
    for i, (a, b) in enumerate(zip(lhs, rhs, strict=True)):
        if is_int(a) and is_int(b) and a != b and a != 1 and b != 1:
            out.append((i, int(a), int(b)))  # type: ignore[call-overload]
    return out


def _shape_text(value: Value) -> str:
    dims = value.shape.dims if value.shape is not None else None
    if dims is None:
        return "tensor"
    return "[" + ", ".join(str(d) if is_int(d) else "?" for d in dims) + "]"

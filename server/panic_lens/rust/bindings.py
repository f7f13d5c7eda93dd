"""What a local expression holds: the canonical burn type of a receiver, and builder chains.

Follows `let`, declared types, parameters, `self.field`, `.clone()`, constructors, builder
chains (`XConfig::new().with_a(..).init()`), shadowing and type aliases. Unknown is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from panic_lens.model import Span
from panic_lens.rust.burn_api import TENSOR_SELF_METHODS
from panic_lens.rust.locals import LocalBinding, find_binding
from panic_lens.rust.syntax import (
    Node,
    call_parts,
    child_by_field,
    enclosing,
    method_call,
    node_text,
    path_segments,
    span_of,
    strip_wrappers,
)

if TYPE_CHECKING:
    from panic_lens.rust.view import FileView

_TYPE_PATHS = frozenset(
    {"type_identifier", "scoped_type_identifier", "identifier", "scoped_identifier"}
)
_MAX_DEPTH = 48  # chains deeper than this are unknown, never a RecursionError

# `Config.init()` results, per canonical config type.
INIT_RESULTS: dict[str, str] = {
    "burn::nn::loss::CTCLossConfig": "burn::nn::loss::CTCLoss",
    "burn::nn::interpolate::Interpolate1dConfig": "burn::nn::interpolate::Interpolate1d",
    "burn::nn::interpolate::Interpolate2dConfig": "burn::nn::interpolate::Interpolate2d",
}
# Methods that return `Self` for any burn type (Clone, Policy/Module by-value loaders...).
SELF_METHODS = frozenset({"clone", "load_record", "to_device", "fork", "no_grad", "train"})
# Associated functions that return `Self` for a burn type.
CONSTRUCTORS = frozenset({"new", "default"})
TENSOR = "burn::tensor::Tensor"
TENSOR_CONSTRUCTORS = frozenset(
    {"zeros", "ones", "empty", "full", "from_data", "from_ints", "from_floats", "from_bool",
     "random", "arange", "arange_step", "zeros_like", "ones_like", "from_primitive", "cat",
     "stack"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TypeFact:
    """A canonical burn type, where it was established, and a short human account."""

    path: str
    origin: Span
    note: str


@dataclass(frozen=True, slots=True)
class ChainCall:
    """One `.name(args)` step of a builder chain."""

    name: str
    name_node: Node
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class BuilderChain:
    """`root.m1(..).m2(..)`, following let-bound locals back to the constructor."""

    root: Node
    calls: tuple[ChainCall, ...]

    def last(self, name: str) -> ChainCall | None:
        """The last call of `name` (a later `.with_mode(..)` overrides an earlier one)."""
        return next((c for c in reversed(self.calls) if c.name == name), None)


def _memo(facts: FileView) -> dict[Any, Any] | None:
    """The facts' memo, when they keep one (a FileFacts does, for as long as its tree)."""
    return getattr(facts, "memo", None)


def binding_of(ident: Node, facts: FileView) -> LocalBinding | None:
    return find_binding(ident, facts.src, facts.tree.root_node, _memo(facts))


def value_origin(ident: Node, facts: FileView) -> Node | None:
    """The expression the local `ident` was last bound to before this use, if known."""
    binding = (
        find_binding(ident, facts.src, facts.tree.root_node, _memo(facts))
        if ident.type == "identifier"
        else None
    )
    return binding.value if binding is not None else None


def type_of(expr: Node | None, facts: FileView, depth: int = 0) -> TypeFact | None:
    """The canonical burn type `expr` evaluates to, when the file shows it."""
    expr = strip_wrappers(expr)
    if expr is None or depth > _MAX_DEPTH:
        return None
    kind = expr.type
    if kind in ("identifier", "self"):
        return _type_of_local(expr, facts, depth)
    if kind == "field_expression":
        return _type_of_field(expr, facts)
    if kind == "call_expression":
        return _type_of_call(expr, facts, depth)
    if kind == "struct_expression":
        name = child_by_field(expr, "name")
        path = facts.resolve(name) if name is not None else None
        return _fact(_enum_of(path), expr, facts, "struct literal") if path else None
    return None


def _enum_of(path: str) -> str:
    """`burn::module::Initializer::Orthogonal` -> `burn::module::Initializer`: a literal of a
    struct-like variant is a value of its enum (a module is never capitalised, a variant and
    its enum are)."""
    owner, _, last = path.rpartition("::")
    if owner.rsplit("::", 1)[-1][:1].isupper() and last[:1].isupper():
        return owner
    return path


def type_of_type(type_node: Node | None, facts: FileView, depth: int = 0) -> str | None:
    """Canonical path of a written type (`&mut AsyncPolicy<P>`, a local alias of one...)."""
    while type_node is not None and type_node.type in ("reference_type", "pointer_type"):
        type_node = child_by_field(type_node, "type")
    if type_node is None or depth > 8:
        return None
    if type_node.type == "generic_type":
        type_node = child_by_field(type_node, "type")
    if type_node is None or type_node.type not in _TYPE_PATHS:
        return None
    if type_node.type in ("type_identifier", "identifier"):
        item = facts.imports.local_item(node_text(type_node, facts.src), type_node)
        if item is not None and item.type == "type_item":
            return type_of_type(child_by_field(item, "type"), facts, depth + 1)
    return facts.resolve(type_node)


def local_struct(expr: Node | None, facts: FileView) -> Node | None:
    """The file's own struct item that `expr` (`self` or a typed local) is an instance of."""
    expr = strip_wrappers(expr)
    type_node: Node | None = None
    if expr is not None and expr.type == "self":
        impl = enclosing(expr, {"impl_item"}, facts.tree.root_node)
        type_node = child_by_field(impl, "type")
    elif expr is not None and expr.type == "identifier":
        binding = find_binding(expr, facts.src, facts.tree.root_node, _memo(facts))
        if binding is not None and binding.type_node is None:
            return _struct_of_value(binding.value, facts)
        type_node = binding.type_node if binding is not None else None
    return _struct_named(type_node, facts)


def _struct_of_value(value: Node | None, facts: FileView) -> Node | None:
    """`Agent { .. }` or `Agent::new(..)` whose impl says it returns `Self` / `Agent`."""
    value = strip_wrappers(value)
    if value is not None and value.type == "struct_expression":
        return _struct_named(child_by_field(value, "name"), facts)
    site = facts.call_site(value) if value is not None and value.type == "call_expression" else None
    struct = _struct_named(site.owner, facts) if site and site.kind == "path" else None
    name = child_by_field(struct, "name") if struct is not None else None
    if site is None or name is None:
        return None
    return struct if _returns_self(node_text(name, facts.src), site.name, facts) else None


def _returns_self(struct: str, method: str, facts: FileView) -> bool:
    for fn in facts.nodes("item"):
        fn_name, impl = child_by_field(fn, "name"), fn.parent and fn.parent.parent
        if fn.type != "function_item" or fn_name is None or impl is None:
            continue
        if impl.type != "impl_item" or node_text(fn_name, facts.src) != method:
            continue
        owner = child_by_field(impl, "type")
        returns = child_by_field(fn, "return_type")
        if owner is not None and returns is not None and _base_name(owner, facts) == struct:
            return _base_name(returns, facts) in ("Self", struct)
    return False


def _base_name(type_node: Node, facts: FileView) -> str:
    inner = child_by_field(type_node, "type") if type_node.type == "generic_type" else type_node
    return node_text(inner or type_node, facts.src)


def builder_chain(expr: Node | None, facts: FileView) -> BuilderChain | None:
    """The method calls applied to a constructor, through let-bound locals, root first."""
    calls: list[ChainCall] = []
    cur = strip_wrappers(expr)
    for _ in range(_MAX_DEPTH * 4):
        if cur is None:
            return None
        parts = method_call(cur)
        if parts is not None:
            receiver, name, args = parts
            calls.append(ChainCall(node_text(name, facts.src), name, tuple(args)))
            cur = strip_wrappers(receiver)
        elif cur.type == "identifier" and (origin := value_origin(cur, facts)) is not None:
            cur = strip_wrappers(origin)
        else:
            return BuilderChain(cur, tuple(reversed(calls)))
    return None


def _type_of_const(ident: Node, facts: FileView) -> TypeFact | None:
    """A `const` or `static` of the file, by its declared type (`const HE: Initializer`)."""
    name = node_text(ident, facts.src)
    item = facts.imports.local_item(name, ident)
    if item is None or item.type not in ("const_item", "static_item"):
        return None
    type_node = child_by_field(item, "type")
    path = type_of_type(type_node, facts)
    text = node_text(type_node, facts.src) if type_node is not None else ""
    return _fact(path, item, facts, f"const `{name}: {text}`") if path else None


def _type_of_local(ident: Node, facts: FileView, depth: int) -> TypeFact | None:
    if ident.type == "self":
        impl = enclosing(ident, {"impl_item"}, facts.tree.root_node)
        path = type_of_type(child_by_field(impl, "type"), facts)
        return _fact(path, impl, facts, "self") if path and impl is not None else None
    binding = find_binding(ident, facts.src, facts.tree.root_node, _memo(facts))
    if binding is None:
        return _type_of_const(ident, facts)
    if binding.type_node is not None:
        path = type_of_type(binding.type_node, facts)
        what = "parameter" if binding.kind in ("param", "closure-param") else "let"
        text = node_text(binding.type_node, facts.src)
        return _fact(path, binding.decl, facts, f"{what} `{binding.name}: {text}`")
    inner = type_of(binding.value, facts, depth + 1)
    if inner is None:
        return None
    return TypeFact(inner.path, inner.origin, inner.note)


def _type_of_field(expr: Node, facts: FileView) -> TypeFact | None:
    struct = local_struct(child_by_field(expr, "value"), facts)
    field_node = child_by_field(expr, "field")
    if struct is None or field_node is None:
        return None
    wanted = node_text(field_node, facts.src)
    body = child_by_field(struct, "body")
    for decl in body.named_children if body is not None else []:
        name = child_by_field(decl, "name")
        if decl.type == "field_declaration" and name and node_text(name, facts.src) == wanted:
            path = type_of_type(child_by_field(decl, "type"), facts)
            return _fact(path, decl, facts, f"field `{node_text(decl, facts.src)}`")
    return None


def _type_of_call(expr: Node, facts: FileView, depth: int) -> TypeFact | None:
    parts = method_call(expr)
    if parts is not None:
        receiver, name, _ = parts
        inner = type_of(receiver, facts, depth + 1)
        return _after_method(inner, node_text(name, facts.src)) if inner else None
    callee = child_by_field(expr, "function")
    if callee is not None and callee.type == "generic_function":
        callee = child_by_field(callee, "function")
    if callee is not None and callee.type == "identifier":
        return _returned_by_local_fn(expr, callee, facts)
    if callee is None or callee.type != "scoped_identifier":
        return None
    owner, fn_node = child_by_field(callee, "path"), child_by_field(callee, "name")
    if owner is None or fn_node is None:
        return None
    fn = node_text(fn_node, facts.src)
    path = type_of_type(owner, facts) if owner.type != "bracketed_type" else None
    burn_owner = owner.type == "bracketed_type" or (path or "").startswith("burn::")
    if fn in SELF_METHODS and burn_owner:  # `Policy::load_record(p, r)`, `<T as Clone>::clone`
        args = call_parts(expr)[1]
        return type_of(args[0], facts, depth + 1) if args else None
    if path == TENSOR and fn in TENSOR_CONSTRUCTORS:
        return _fact(path, expr, facts, f"Tensor::{fn}(..)")
    if path and path.startswith(("burn::", "burn_")) and fn in CONSTRUCTORS:
        short = path.rsplit("::", 1)[-1]
        return _fact(path, expr, facts, f"{short}::{fn}(..)")
    return None


def _returned_by_local_fn(expr: Node, callee: Node, facts: FileView) -> TypeFact | None:
    """`readings(50)` of `fn readings(n: usize) -> InMemDataset<Reading>` in this file: the
    burn type its signature declares (a tensor's is the evaluator's, by its shape)."""
    name = node_text(callee, facts.src)
    item = facts.imports.local_item(name, callee)
    returns = child_by_field(item, "return_type") if item is not None else None
    if item is None or item.type != "function_item" or returns is None:
        return None
    path = type_of_type(returns, facts)
    if path is None or not path.startswith(("burn::", "burn_")) or path == TENSOR:
        return None
    return _fact(path, expr, facts, f"{name}(..) returns {path.rsplit('::', 1)[-1]}")


def _after_method(inner: TypeFact, method: str) -> TypeFact | None:
    """The type after `.method()` on `inner`, for the methods whose result type we know."""
    if inner.path in INIT_RESULTS and method == "init":
        return TypeFact(INIT_RESULTS[inner.path], inner.origin, f"{inner.note}, then .init()")
    if inner.path.endswith("Config") and method.startswith("with_"):
        return inner
    if method in SELF_METHODS or (inner.path == TENSOR and method in TENSOR_SELF_METHODS):
        return inner
    return None


def _struct_named(type_node: Node | None, facts: FileView) -> Node | None:
    while type_node is not None and type_node.type in ("reference_type", "generic_type"):
        type_node = child_by_field(type_node, "type")
    if type_node is None or type_node.type not in ("type_identifier", "identifier"):
        return None
    item = facts.imports.local_item(node_text(type_node, facts.src), type_node)
    return item if item is not None and item.type == "struct_item" else None


def _fact(path: str | None, node: Node | None, facts: FileView, what: str) -> TypeFact | None:
    if path is None or node is None:
        return None
    return TypeFact(path, span_of(node), f"{what} on line {node.start_point[0] + 1}")


__all__ = [
    "BuilderChain",
    "ChainCall",
    "TypeFact",
    "binding_of",
    "builder_chain",
    "local_struct",
    "path_segments",
    "type_of",
    "type_of_type",
    "value_origin",
]

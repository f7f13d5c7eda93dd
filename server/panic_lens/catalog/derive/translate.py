"""Stage 3a, translating Rust expressions to the rule language: `Translator` reads one Rust
expression of an entry point's scope (`Scope`: its parameters, the receiver, the config's
fields, the tensors' ranks) as CEL, exactly, or raises `Unmapped` naming the construct.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from panic_lens.catalog.derive.model import Unmapped, split_args

if TYPE_CHECKING:
    from panic_lens.rust.syntax import Node


class Scope:
    """How names of the entry's Rust scope read in the rule language."""

    def __init__(
        self,
        kind: str,
        params: list[str],
        self_tensor: bool,
        config_fields: Collection[str] | Mapping[str, str],
        ranks: dict[str, str] | None = None,
    ) -> None:
        self.kind = kind
        self.names: dict[str, str] = {p: p for p in params}
        self.self_tensor = self_tensor
        # a const generic that is a tensor's rank (`D` of `self` or of `x: Tensor<D>`): its size
        self.ranks = dict(ranks or {})
        if self_tensor:
            self.ranks["D"] = "receiver.rank"
        # a module's `self.f` as its config's values: what the config's `init` built it of
        # (a mapping), or the config's field of that name (a collection of names)
        self.fields: Mapping[str, str] = (
            config_fields
            if isinstance(config_fields, Mapping)
            else {f: f"config.{f}" for f in config_fields}
        )


_INT = re.compile(r"^(\d[\d_]*)(?:_?(?:u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize))?$")
_FLOAT = re.compile(r"^(\d[\d_]*)(\.[\d_]*)?([eE][+-]?\d+)?(?:_?f(?:32|64))?$")
_PASS_METHODS = frozenset(
    {"iter", "as_ref", "clone", "to_vec", "as_slice", "into_iter", "copied", "cloned", "to_owned",
     "borrow", "as_deref", "into"}
)  # fmt: skip
_INT_TYPES = frozenset(
    {"usize", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "isize", "u128", "i128"}
)


# `usize::MAX`, `i32::MIN`: an integer type's limit
_LIMIT = re.compile(r"(?:core::|std::)?(?:\w+::)?([ui])(size|8|16|32|64|128)::(MAX|MIN)")


def _limit(sign: str, bits: str, which: str) -> int:
    width = 64 if bits == "size" else int(bits)
    if sign == "u":
        return 0 if which == "MIN" else (1 << width) - 1
    return -(1 << (width - 1)) if which == "MIN" else (1 << (width - 1)) - 1


@lru_cache(maxsize=4096)
def _expr_tree(text: str) -> Node | None:
    from panic_lens.rust.syntax import parse

    tree = parse(f"fn __f() {{ let __x = {text}; }}".encode())
    found = tree.root_node
    stack = [found]
    while stack:
        node = stack.pop()
        if node.type == "let_declaration":
            value = node.child_by_field_name("value")
            if value is not None and not value.has_error and not tree.root_node.has_error:
                return value
            return None
        stack.extend(node.named_children)
    return None


class Translator:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def expr(self, text: str, bound: dict[str, str] | None = None) -> str:
        node = _expr_tree(text)
        if node is None:
            raise Unmapped(f"`{text}` (not an expression panic-lens reads)")
        src = f"fn __f() {{ let __x = {text}; }}".encode()
        return self.node(node, src, dict(bound or {}))

    def node(self, node: Node, src: bytes, bound: dict[str, str]) -> str:
        kind = node.type
        text = src[node.start_byte : node.end_byte].decode()
        if kind == "parenthesized_expression":
            return f"({self.node(node.named_children[0], src, bound)})"
        if kind == "binary_expression":
            op = node.child_by_field_name("operator")
            op_text = src[op.start_byte : op.end_byte].decode() if op else "?"
            if op_text not in (
                "&&",
                "||",
                "==",
                "!=",
                "<",
                "<=",
                ">",
                ">=",
                "+",
                "-",
                "*",
                "/",
                "%",
            ):
                raise Unmapped(f"the operator `{op_text}`")
            left = self.node(node.child_by_field_name("left"), src, bound)  # type: ignore[arg-type]
            right = self.node(node.child_by_field_name("right"), src, bound)  # type: ignore[arg-type]
            return f"{left} {op_text} {right}"
        if kind == "unary_expression":
            inner = self.node(node.named_children[0], src, bound)
            if text.startswith("!"):
                return f"!({inner})"
            if text.startswith("-"):
                return f"-{inner}"
            if text.startswith("*"):
                return inner
            raise Unmapped(f"`{text}`")
        if kind == "reference_expression":
            return self.node(node.named_children[-1], src, bound)
        if kind == "integer_literal":
            found = _INT.match(text)
            if not found:
                raise Unmapped(f"the literal `{text}`")
            return found.group(1).replace("_", "")
        if kind == "float_literal":
            found = _FLOAT.match(text)
            if not found:
                raise Unmapped(f"the literal `{text}`")
            whole, frac, exp = found.group(1), found.group(2) or ".", found.group(3) or ""
            frac = frac if len(frac) > 1 else ".0"
            return f"{whole.replace('_', '')}{frac.replace('_', '')}{exp}"
        if kind == "boolean_literal":
            return text
        if kind == "string_literal":
            return text
        if kind == "identifier":
            if text in bound:
                return bound[text]
            if text in self.scope.names:
                return self.scope.names[text]
            if text in self.scope.ranks:
                return self.scope.ranks[text]  # a tensor's rank
            if text.isupper():
                raise Unmapped(f"the constant `{text}`")
            if text == "None":
                return "null"
            raise Unmapped(f"the local value `{text}`")
        if kind == "self":
            if self.scope.self_tensor:
                return "receiver"
            raise Unmapped("`self` as a whole value")
        if kind == "field_expression":
            value = node.child_by_field_name("value")
            name = node.child_by_field_name("field")
            assert value is not None and name is not None
            field_text = src[name.start_byte : name.end_byte].decode()
            if value.type == "self" and self.scope.kind in ("config", "module"):
                if self.scope.kind == "config":
                    return f"config.{field_text}"
                if field_text not in self.scope.fields:
                    raise Unmapped(f"the module's field `self.{field_text}` (not its config's)")
                return self.scope.fields[field_text]
            base = self.node(value, src, bound)
            if field_text.isdigit():
                return f"{base}[{field_text}]"
            if field_text == "shape" and _bare(base) in self.scope.names.values():
                # `data.into().shape`: the shape of the `TensorData` an argument becomes (a
                # nested array's, or a tensor's whose shape is known)
                return f"shape({_bare(base)})"
            if value.type == "identifier" and base in self.scope.names.values():
                # a field of a struct argument (`options.n_fft` of `options: StftOptions`): a
                # map's field where the struct's value is known, else unknown
                return f"{base}.{field_text}"
            raise Unmapped(
                f"the field `.{field_text}` of `{src[value.start_byte : value.end_byte].decode()}`"
            )
        if kind == "array_expression":
            if any(c.type == ";" for c in node.children):
                raise Unmapped(f"the repeated array `{text}`")
            parts = [c for c in node.named_children if "comment" not in c.type]
            return f"[{', '.join(self.node(c, src, bound) for c in parts)}]"
        if kind == "index_expression":
            parts = node.named_children
            base = self.node(parts[0], src, bound)
            index = self.node(parts[1], src, bound)
            return f"{base}[{index}]"
        if kind == "scoped_identifier":
            name = node.child_by_field_name("name")
            path = node.child_by_field_name("path")
            last = src[name.start_byte : name.end_byte].decode() if name else text
            owner = src[path.start_byte : path.end_byte].decode() if path else ""
            if last[:1].isupper() and owner.rsplit("::", 1)[-1][:1].isupper():
                return json.dumps(last)  # an enum variant: its name
            raise Unmapped(f"the path `{text}`")
        if kind == "call_expression":
            return self.call(node, src, bound, text)
        if kind == "macro_invocation":
            return self.macro(node, src, bound, text)
        if kind == "type_cast_expression":
            value = node.child_by_field_name("value")
            type_ = node.child_by_field_name("type")
            type_text = src[type_.start_byte : type_.end_byte].decode() if type_ else ""
            value_text = src[value.start_byte : value.end_byte].decode() if value else ""
            limit = _LIMIT.fullmatch(value_text)
            if limit and type_text in ("f32", "f64"):  # `usize::MAX as f64`: past CEL's ints
                return repr(float(_limit(limit.group(1), limit.group(2), limit.group(3))))
            inner = self.node(value, src, bound)  # type: ignore[arg-type]
            if type_text in ("f32", "f64"):
                return f"double({inner})"
            if type_text in _INT_TYPES:
                return f"int({inner})"
            raise Unmapped(f"the cast `as {type_text}`")
        if kind == "if_expression":
            return self.choice(node, src, bound, text)
        raise Unmapped(f"`{text}` ({kind.replace('_', ' ')})")

    def choice(self, node: Node, src: bytes, bound: dict[str, str], text: str) -> str:
        """`if c { a } else { b }`, each branch one expression: `(c ? a : b)`."""
        condition = node.child_by_field_name("condition")
        then = node.child_by_field_name("consequence")
        other = node.child_by_field_name("alternative")
        branches = [then, other.named_children[0] if other and other.named_children else None]
        values = []
        for block in branches:
            inner = [c for c in block.named_children if "comment" not in c.type] if block else []
            if block is None or block.type != "block" or len(inner) != 1:
                raise Unmapped(f"`{text}` (if expression)")
            if inner[0].type == "expression_statement" or condition is None:
                raise Unmapped(f"`{text}` (if expression)")
            values.append(self.node(inner[0], src, bound))
        if condition is None or condition.type == "let_condition":
            raise Unmapped(f"`{text}` (if expression)")
        test = self.node(condition, src, bound)
        return f"({test} ? {values[0]} : {values[1]})"

    def call(self, node: Node, src: bytes, bound: dict[str, str], text: str) -> str:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if function is not None and function.type == "identifier":
            name = src[function.start_byte : function.end_byte].decode()
            if name in ("Some", "Ignored") and len(args) == 1:  # `Ignored(x)`: burn's wrapper
                return self.node(args[0], src, bound)
            if name == "unwrap_dim_index" and len(args) == 2:
                # burn-tensor's dim wrapping: a negative dim counts from the end (an out of
                # range one panics with its own message first)
                found = DIM_INDEX.fullmatch(src[args[0].start_byte : args[0].end_byte].decode())
                if found and found.group(2) in self.scope.ranks:
                    dim = self.expr(found.group(1), bound)
                    return from_start(dim, self.scope.ranks[found.group(2)])
            raise Unmapped(f"the call `{name}(..)`")
        if function is not None and function.type == "generic_function":
            inner = function.child_by_field_name("function")
            field = inner.child_by_field_name("field") if inner is not None else None
            if field is not None and src[field.start_byte : field.end_byte] in (b"sum", b"product"):
                function = inner  # `.sum::<usize>()`: the type is the list's items'
        if function is None or function.type != "field_expression":
            raise Unmapped(f"the call `{text}`")
        method_node = function.child_by_field_name("field")
        receiver = function.child_by_field_name("value")
        assert method_node is not None and receiver is not None
        method = src[method_node.start_byte : method_node.end_byte].decode()
        if method == "contains" and len(args) == 1:
            inner = receiver
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            value = self.node(args[0], src, bound)
            if inner.type == "range_expression":
                ends = inner.named_children
                rtext = src[inner.start_byte : inner.end_byte].decode()
                if len(ends) != 2:
                    raise Unmapped(f"the open range `{rtext}`")
                lo, hi = (self.node(e, src, bound) for e in ends)
                upper = "<=" if "..=" in rtext else "<"
                return f"({lo} <= {value} && {value} {upper} {hi})"
            return f"({value} in {self.node(receiver, src, bound)})"
        base = self.node(receiver, src, bound) if method != "dims" else None
        if method in _PASS_METHODS and not args:
            return base  # type: ignore[return-value]
        if method in ("sum", "product") and not args:
            return f"{method}({base})"  # the rule language's sum(list), product(list)
        if method == "is_multiple_of" and len(args) == 1:
            return f"({base} % {self.node(args[0], src, bound)} == 0)"
        if method == "len" and not args:
            return f"size({base})"
        if method == "is_empty" and not args:
            return f"(size({base}) == 0)"
        if method == "is_some" and not args:
            return f"({base} != null)"
        if method == "is_none" and not args:
            return f"({base} == null)"
        if method == "unwrap_or" and len(args) == 1:
            other = self.node(args[0], src, bound)
            return f"({base} != null ? {base} : {other})"
        if method == "abs" and not args:
            return f"({base} < 0 ? -{base} : {base})"
        if method in ("min", "max") and len(args) == 1:
            other = self.node(args[0], src, bound)
            op = "<=" if method == "min" else ">="
            return f"({base} {op} {other} ? {base} : {other})"
        if method == "is_power_of_two" and not args:
            return f"({base} in [{', '.join(str(1 << i) for i in range(63))}])"
        if method == "is_sign_negative" and not args:
            return f"({base} < 0.0)"
        if method == "is_sign_positive" and not args:
            return f"({base} >= 0.0)"
        if method in ("dims", "shape") and not args:
            tensor = self.node(receiver, src, bound)
            while tensor.startswith("(") and tensor.endswith(")"):
                tensor = tensor[1:-1]
            if tensor != "receiver" and tensor not in self.scope.names.values():
                raise Unmapped(
                    f"the shape of `{src[receiver.start_byte : receiver.end_byte].decode()}`"
                )
            return f"{tensor}.dims"
        if method == "num_elements" and not args and base is not None:
            shape = base
            while shape.startswith("(") and shape.endswith(")") and balanced(shape[1:-1]):
                shape = shape[1:-1]
            if shape.endswith(".dims"):
                return f"{shape.removesuffix('.dims')}.numel"  # a known shape's product
        if method in ("all", "any") and len(args) == 1 and args[0].type == "closure_expression":
            params = args[0].child_by_field_name("parameters")
            body = args[0].child_by_field_name("body")
            names = (
                re.findall(r"\w+", src[params.start_byte : params.end_byte].decode())
                if params
                else []
            )
            if len(names) != 1 or body is None:
                raise Unmapped(f"the closure of `.{method}(..)`")
            var = names[0]
            test = self.node(body, src, {**bound, var: var})
            cel_macro = "all" if method == "all" else "exists"
            return f"{base}.{cel_macro}({var}, {test})"
        raise Unmapped(f"the method `.{method}(..)`")

    def macro(self, node: Node, src: bytes, bound: dict[str, str], text: str) -> str:
        found = re.match(r"^matches!\s*\((.*)\)$", text, re.S)
        if not found:
            raise Unmapped(f"the macro `{text.split('!', 1)[0]}!`")
        args = split_args(found.group(1))
        if len(args) != 2:
            raise Unmapped("`matches!` with a guard")
        value = self.expr(args[0], bound)
        return self.pattern(value, args[1])

    def pattern(self, value: str, pattern: str) -> str:
        alternatives = [p.strip() for p in pattern.split("|")]
        out = []
        for alt in alternatives:
            bare = re.sub(r"\s*(\{\s*\.\.\s*\}|\(\s*\.\.\s*\))$", "", alt)
            if bare == "None":
                out.append(f"{value} == null")
            elif re.fullmatch(r"(?:\w+::)*[A-Z]\w*::[A-Z]\w*", bare):
                out.append(f"{value} == {json.dumps(bare.rsplit('::', 1)[-1])}")
            else:
                raise Unmapped(f"the pattern `{alt}`")
        return out[0] if len(out) == 1 else "(" + " || ".join(out) + ")"


def balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


# `dim.try_dim_index(D)` (a Result) or `dim.expect_dim_index(D)`: burn-tensor's dim, in [-D, D)
DIM_INDEX = re.compile(
    r"\(?\s*(.+?)\.(?:try_dim_index|expect_dim_index)\(\s*(\w+)\s*\)\s*\)?", re.S
)


def from_start(dim: str, rank: str) -> str:
    """A dim in [-rank, rank) counted from the start: a negative one counts from the end."""
    return f"({dim} < 0 ? {dim} + {rank} : {dim})"


def _bare(expr: str) -> str:
    """`expr` without the parentheses around it."""
    while expr.startswith("(") and expr.endswith(")") and balanced(expr[1:-1]):
        expr = expr[1:-1]
    return expr

"""Where a local name was bound: `let`, assignment, parameter or pattern, as seen at one use.

Conservative: when the last binding cannot be known (a pattern, a branch that reassigns),
the answer says so (`value is None`) rather than looking further back.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from panic_lens.rust.lexical import word_starts
from panic_lens.rust.syntax import Node, ancestors, child_by_field, walk

_PATTERN_OWNERS = {"for_expression": "pattern", "match_arm": "pattern", "let_condition": "pattern"}
_ASSIGN_KINDS = frozenset({"assignment_expression", "compound_assignment_expr"})


@dataclass(frozen=True, slots=True)
class LocalBinding:
    """One binding of a local name.

    kind: "let", "assign", "param", "self", "closure-param" or "pattern" (value unknown).
    `decl` is the node that introduced the name; `type_node` its declared type, if any;
    `value` the bound expression (None for parameters, patterns and unknown reassignments).
    """

    name: str
    kind: str
    decl: Node
    type_node: Node | None = None
    value: Node | None = None


def find_binding(
    ident: Node, src: bytes, root: Node | None = None, memo: dict[Any, Any] | None = None
) -> LocalBinding | None:
    """The binding of the identifier `ident` (or `self`) in force where it is used.

    Pass the tree's `root` so deep expressions stay linear (see `syntax.ancestors`), and a
    `memo` that lives as long as the tree (a file's facts' or evaluator's) to look each
    identifier up once: the evaluator, the types and the values all ask about the same ones.
    """
    if memo is None:
        return _find_binding(ident, src, root, None)
    key = ("binding", ident.id)
    found = memo.get(key, _UNSET)
    if found is _UNSET:
        found = memo[key] = _find_binding(ident, src, root, memo)
    return found


_UNSET = object()


def _find_binding(
    ident: Node, src: bytes, root: Node | None, memo: dict[Any, Any] | None
) -> LocalBinding | None:
    name = src[ident.start_byte : ident.end_byte].decode("utf-8", errors="replace")
    child = ident
    for cur in ancestors(ident, root):
        found = _binding_in(cur, child, name, ident.start_byte, src, memo)
        if found is not None:
            return found
        if cur.type == "function_item":
            return None
        child = cur
    return None


def _binding_in(
    node: Node, child: Node, name: str, pos: int, src: bytes, memo: dict[Any, Any] | None
) -> LocalBinding | None:
    kind = node.type
    if kind == "block":
        return _in_block(node, child, name, pos, src, memo)
    if kind == "function_item":
        return _in_params(child_by_field(node, "parameters"), name, src, "param")
    if kind == "closure_expression":
        return _in_params(child_by_field(node, "parameters"), name, src, "closure-param")
    if kind in ("if_expression", "while_expression"):
        cond = child_by_field(node, "condition")
        if cond is not None and cond is not child:
            for sub in walk(cond):
                if sub.type == "let_condition" and _binds(
                    child_by_field(sub, "pattern"), name, src
                ):
                    return LocalBinding(name, "pattern", sub)
        return None
    field = _PATTERN_OWNERS.get(kind)
    pattern = child_by_field(node, field) if field else None
    if pattern is not None and pattern is not child and _binds(pattern, name, src):
        return LocalBinding(name, "pattern", pattern)
    return None


def _in_block(
    block: Node, child: Node, name: str, pos: int, src: bytes, memo: dict[Any, Any] | None
) -> LocalBinding | None:
    """Scan the statements before `child` backwards for the latest binding of `name`."""
    needle = name.encode()
    if src.find(needle, block.start_byte, min(child.start_byte, pos)) < 0:
        return None  # not written before the use: nothing in the block binds it
    statements, starts = _statements(block, memo)
    for at in range(bisect_left(starts, child.start_byte) - 1, -1, -1):
        stmt = statements[at]
        if stmt.end_byte > pos:
            continue
        if src.find(needle, stmt.start_byte, stmt.end_byte) < 0:
            continue
        if stmt.type == "let_declaration":
            found = _from_let(stmt, name, src)
            if found is not None:
                return found
        assign = _direct_assignment(stmt, name, src)
        if assign is not None:
            return assign
        if _assigns_somewhere(stmt, name, src):
            return LocalBinding(name, "pattern", stmt)  # reassigned in a branch: unknown
    return None


def _statements(block: Node, memo: dict[Any, Any] | None) -> tuple[list[Node], list[int]]:
    """A block's statements and their start bytes, read once per block when a `memo` is
    given (a long function body is scanned for each name read in it)."""
    key = ("statements", block.id)
    found = memo.get(key) if memo is not None else None
    if found is None:
        statements = block.named_children
        found = (statements, [s.start_byte for s in statements])
        if memo is not None:
            memo[key] = found
    return found


def _from_let(stmt: Node, name: str, src: bytes) -> LocalBinding | None:
    pattern = child_by_field(stmt, "pattern")
    if pattern is None or not _binds(pattern, name, src):
        return None
    if pattern.type != "identifier":
        return LocalBinding(name, "pattern", pattern)
    value = child_by_field(stmt, "value")
    kind = "pattern" if child_by_field(stmt, "alternative") is not None else "let"
    return LocalBinding(name, kind, pattern, child_by_field(stmt, "type"), value)


def _direct_assignment(stmt: Node, name: str, src: bytes) -> LocalBinding | None:
    expr = stmt.named_children[0] if stmt.type == "expression_statement" else None
    if expr is None or expr.type != "assignment_expression":
        return None
    left = child_by_field(expr, "left")
    if left is None or left.type != "identifier" or _text(left, src) != name:
        return None
    return LocalBinding(name, "assign", left, None, child_by_field(expr, "right"))


def _assigns_somewhere(stmt: Node, name: str, src: bytes) -> bool:
    text = src[stmt.start_byte : stmt.end_byte]
    if b"/*" not in text and b"//" not in text and not _writes_assignment(text, name.encode()):
        return False  # `name` is never followed by `=` or `op=`: no assignment of it here
    for sub in walk(stmt):
        if sub.type in _ASSIGN_KINDS:
            left = child_by_field(sub, "left")
            if left is not None and left.type == "identifier" and _text(left, src) == name:
                return True
    return False


# what follows the name an assignment assigns: `=` or a compound operator's `op=`
_ASSIGN_OPERATOR = re.compile(rb"\s*(?:<<|>>|[-+*/%&|^])?=(?!=)")


def _writes_assignment(text: bytes, name: bytes) -> bool:
    """`name`, as a whole word, followed by `=` or `op=` somewhere in `text`: a byte test that
    spares walking a statement that cannot assign it. Comments between the name and the
    operator would hide one: the caller walks a statement with a comment anyway."""
    return any(_ASSIGN_OPERATOR.match(text, at + len(name)) for at in word_starts(text, name))


def _in_params(params: Node | None, name: str, src: bytes, kind: str) -> LocalBinding | None:
    for param in params.named_children if params is not None else []:
        if param.type == "self_parameter" and name == "self":
            return LocalBinding(name, "self", param)
        if param.type == "identifier" and _text(param, src) == name:
            return LocalBinding(name, kind, param)
        if param.type == "reference_pattern" and len(param.named_children) == 1:
            inner = param.named_children[0]  # `|&k|` over `.iter()`: k is the element
            if inner.type == "identifier" and _text(inner, src) == name:
                return LocalBinding(name, kind, inner)
        pattern = child_by_field(param, "pattern")
        if pattern is not None and _binds(pattern, name, src):
            plain = pattern.type == "identifier"
            type_node = child_by_field(param, "type") if plain else None
            return LocalBinding(name, kind if plain else "pattern", pattern, type_node)
    return None


def _binds(pattern: Node | None, name: str, src: bytes) -> bool:
    """True when the pattern introduces `name` (path and type parts of patterns do not)."""
    if pattern is None:
        return False
    for sub in walk(pattern):
        is_name = sub.type in ("identifier", "shorthand_field_identifier")
        if is_name and _text(sub, src) == name and not _is_path_part(sub):
            return True
    return False


def _is_path_part(ident: Node) -> bool:
    """`Some` in `Some(x)`, `S` in `S { .. }`, `a` in `a::B`: names, not bindings."""
    parent = ident.parent
    if parent is None:
        return False
    if parent.type in ("tuple_struct_pattern", "struct_pattern", "field_pattern"):
        # `S { f: x }`: `f` names a field, `x` binds; `S { f }` (shorthand): `f` binds
        return parent.child_by_field_name("type") == ident or (
            parent.type == "field_pattern"
            and parent.child_by_field_name("name") == ident
            and parent.child_by_field_name("pattern") is not None
        )
    return parent.type == "scoped_identifier"


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

"""What a local name holds where it is read: the expression its binding gave it, when every
execution reaching the read still has it.

A `let` (or a plain `x = ..` at the same level) gives its value. A `let mut` keeps it up to
the first statement that may change it: an assignment in a branch or a loop, `&mut x`, a
method call on `x` (`x.push(..)`) or a field or index assignment (`x.f = ..`, `x[i] = ..`)
between the binding and the read, or any of those later in a loop body that the read is in.
"""

from __future__ import annotations

import re

from panic_lens.rust.locals import LocalBinding, find_binding
from panic_lens.rust.syntax import Node

_LOOPS = frozenset({"for_expression", "while_expression", "loop_expression"})


def binding(ident: Node, src: bytes, root: Node) -> LocalBinding | None:
    return find_binding(ident, src, root)


def bound_value(ident: Node, found: LocalBinding, src: bytes, root: Node) -> Node | None:
    """The expression `found` (the binding of `ident`) gave the name, when nothing between the
    binding and this read may have changed it; None otherwise."""
    if found.kind not in ("let", "assign") or found.value is None:
        return None
    if not _mutable(found):
        return found.value
    name = found.name.encode()
    start = found.value.end_byte
    if _may_change(src[start : ident.start_byte], name):
        return None
    loop = _loop_around(ident, start, root)
    if loop is not None and _may_change(src[loop.start_byte : loop.end_byte], name):
        return None
    return found.value


def _mutable(found: LocalBinding) -> bool:
    if found.kind == "assign":
        return True
    decl = found.decl
    owner = decl.parent
    if owner is not None and owner.type == "let_declaration":
        return any(c.type == "mutable_specifier" for c in owner.children)
    return decl.type == "mut_pattern"


def _changes(name: bytes) -> re.Pattern[bytes]:
    word = re.escape(name)
    return re.compile(
        rb"&\s*mut\s+" + word + rb"\b"  # lent mutably
        rb"|(?<![\w.])" + word + rb"\s*(?:\.\s*\w+\s*(?:::<[^>]*>)?\s*\(|\[|\.\s*\w+\s*=[^=])"
        rb"|(?<![\w.])" + word + rb"\s*(?:<<|>>|[-+*/%&|^])?=(?!=)"  # assigned
    )


_CACHE: dict[bytes, re.Pattern[bytes]] = {}


def _may_change(text: bytes, name: bytes) -> bool:
    """Whether `text` (the code between a binding and a read, or a loop around the read) may
    change `name` (a read like `x.len()` counts too: unknown is the safe answer)."""
    pattern = _CACHE.get(name)
    if pattern is None:
        if len(_CACHE) > 512:
            _CACHE.clear()
        pattern = _CACHE[name] = _changes(name)
    return pattern.search(text) is not None


def _loop_around(ident: Node, after: int, root: Node) -> Node | None:
    """The outermost loop around the read that starts after the binding (its later iterations
    see what its body changes)."""
    from panic_lens.rust.syntax import ancestors

    found = None
    for node in ancestors(ident, root):
        if node.start_byte < after:
            break
        if node.type in _LOOPS:
            found = node
    return found

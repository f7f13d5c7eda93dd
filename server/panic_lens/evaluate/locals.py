"""What a local name holds where it is read: the expression its binding gave it, when every
execution reaching the read still has it.

A `let` (or a plain `x = ..` at the same level) gives its value. A `let mut` keeps it up to
the first statement that may change it: an assignment in a branch or a loop, `&mut x`, a
method call on `x` (`x.push(..)`) or a field or index assignment (`x.f = ..`, `x[i] = ..`)
between the binding and the read, or any of those later in a loop body that the read is in.
"""

from __future__ import annotations

import re

from panic_lens.rust.lexical import WORD_BYTES
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


# what makes a use of a name a change: lent mutably before it (`&mut x`), or after it a method
# call, its own or a field's (`x.push(..)`, `x.f.take()`, `x.len()`: unknown is the safe
# answer), an index (`x[i]`, `x.f[i]`), a field assignment (`x.f = `, `x.f.g /= `) or an
# assignment (`x = `, `x += `). One pattern for every name (one per name was compiled again
# and again).
_CHANGED_AFTER = re.compile(
    rb"\s*(?:(?:\.\s*\w+\s*)+(?:::<[^>]*>)?\s*\(|(?:\.\s*\w+\s*)*\["
    rb"|(?:\.\s*\w+\s*)*(?:<<|>>|[-+*/%&|^])?=(?!=))"
)
_SPACE = frozenset(b" \t\n\r\f\v")


def _lent_mutably(text: bytes, at: int) -> bool:
    """`&mut` (spaces allowed) right before bytes `at`."""
    i = at
    while i > 0 and text[i - 1] in _SPACE:
        i -= 1
    if i == at or not text.endswith(b"mut", 0, i):
        return False
    i -= 3
    while i > 0 and text[i - 1] in _SPACE:
        i -= 1
    return i > 0 and text[i - 1] == ord("&")


def _may_change(text: bytes, name: bytes) -> bool:
    """Whether `text` (the code between a binding and a read, or a loop around the read) may
    change `name`."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if end == len(text) or text[end] not in WORD_BYTES:  # the whole name
            if _lent_mutably(text, at):
                return True
            before = text[at - 1] if at else None
            if (before is None or (before not in WORD_BYTES and before != ord("."))) and (
                _CHANGED_AFTER.match(text, end)
            ):
                return True
        at = text.find(name, end)
    return False


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

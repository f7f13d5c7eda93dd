"""Whether a condition can still be true at a call once its arguments are bound, before the
costly values (the receiver's and the result's shapes) are worked out.

CEL's logic is three-valued: an input not known makes every strict construct over it
(arithmetic, a comparison, indexing, `in`, a function) unknown, and an unknown condition
gives no finding. So when an argument the condition reads that way is unknown at a call,
no receiver can make the condition true there, and `detect` need not evaluate it.

The condition is read as a tree of `?:`, `||`, `&&` and `!` over atoms (the rest). An atom
is strict unless it contains something that may absorb an unknown (a nested `||`, `&&` or
`?:`, `has()`, or a macro: `exists`, `all`, `map`, `filter`); a strict atom that names an
unknown argument is neither true nor false, and so is a macro call over an unknown range.
Each node says whether it *may* be true and whether it *may* be false, whatever the other
inputs are; the answer is the root's "may be true". Anything this reading does not follow
counts as "may be either": the check only ever skips calls the condition cannot hold at.

`needs_tensor_shape` answers the prefilter's question, whether a condition can only be true
where some tensor's shape is known, by an older and coarser reading (every `!` and `?:` counts
as absorbing): the prefilter's words are computed from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from panic_lens.rules.language.expressions import STRING_LITERAL, free_names

if TYPE_CHECKING:
    from panic_lens.rules.language.spec import RuleSpec, Where

__all__ = ["may_hold", "needs_tensor_shape", "reads_fields", "with_lets"]

_ABSORBS = re.compile(r"\|\||&&|\?|\bhas\s*\(|\.\s*(?:exists|exists_one|all|map|filter)\s*\(")
_OPEN, _CLOSE = "([{", ")]}"


def with_lets(condition: str, lets: Iterable[tuple[str, str]]) -> str:
    """`condition` with each `let` name it reads written as `(its expression)`, later lets
    first (a let may read an earlier one). String literals become `""`: the result is read
    by `may_hold`, never evaluated."""
    text = STRING_LITERAL.sub('""', condition)
    for name, expr in reversed(tuple(lets)):
        before, text = text, ""
        unfolded = "(" + STRING_LITERAL.sub('""', expr) + ")"
        start = 0
        for found in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", before):
            text += before[start : found.start()] + unfolded
            start = found.end()
        text += before[start:]
    return text


def may_hold(condition: str, unknown: frozenset[str]) -> bool:
    """False only when `condition` (string literals blanked, as `with_lets` gives it) cannot
    be true whatever values the names not in `unknown` take: every way to true goes through
    a strict atom that reads a name in `unknown`."""
    if not unknown:
        return True
    return _judge(_tree(condition), unknown)[0]


_Tree = tuple  # ("or"|"and", [trees]) | ("not", tree) | ("if", c, a, b) | ("atom", names needed)


def _judge(tree: _Tree, unknown: frozenset[str]) -> tuple[bool, bool]:
    """(may be true, may be false)."""
    kind = tree[0]
    if kind == "atom":
        if tree[1] & unknown:
            return False, False
        return True, True
    if kind == "not":
        can_true, can_false = _judge(tree[1], unknown)
        return can_false, can_true
    if kind == "if":
        c_true, c_false = _judge(tree[1], unknown)
        if not (c_true or c_false):
            return False, False  # an unknown test: the whole is unknown
        a = _judge(tree[2], unknown) if c_true else (False, False)
        b = _judge(tree[3], unknown) if c_false else (False, False)
        return a[0] or b[0], a[1] or b[1]
    parts = [_judge(part, unknown) for part in tree[1]]
    if kind == "and":
        return all(t for t, _ in parts), any(f for _, f in parts)
    return any(t for t, _ in parts), all(f for _, f in parts)  # "or"


@lru_cache(maxsize=1024)
def _tree(text: str) -> _Tree:
    text = text.strip()
    split = _ternary(text)
    if split is not None:
        return ("if", *(_tree(part) for part in split))
    for op, kind in (("||", "or"), ("&&", "and")):
        parts = _split(text, op)
        if parts is not None and len(parts) > 1:
            return (kind, [_tree(part) for part in parts])
    if text.startswith("!") and not text.startswith("!="):
        return ("not", _tree(text[1:]))
    if _wrapped(text):
        return _tree(text[1:-1])
    return ("atom", _needed(text))


# `range.macro(..)` as a whole: CEL's comprehension over an unknown range is unknown
_MACRO_CALL = re.compile(
    r"((?:[A-Za-z_]\w*\s*\(\s*)?[A-Za-z_][\w.]*(?:\s*\))?)\s*\.\s*"
    r"(?:exists_one|exists|all|map|filter)\s*\(.*\)",
    re.S,
)


def _needed(atom: str) -> frozenset[str]:
    """The names without which `atom` is unknown: all it reads when it is strict; of an
    atom that may absorb an unknown, those of a macro's range when it is the macro call
    (`shape.all(d, d > 0)`, `indices(axes).exists(..)`), else none."""
    if not _ABSORBS.search(atom):
        return frozenset(free_names(atom))
    macro = _MACRO_CALL.fullmatch(atom)
    return frozenset(free_names(macro.group(1))) if macro else frozenset()


def _depths(text: str) -> Iterable[tuple[int, int]]:
    """(index, depth) of each character outside brackets' contents; depth < 0 when
    unbalanced (the caller then treats the text as one atom)."""
    depth = 0
    for at, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        yield at, depth if ch not in _OPEN else depth - 1


def _split(text: str, op: str) -> list[str] | None:
    parts, start, skip = [], 0, 0
    for at, depth in _depths(text):
        if depth < 0:
            return None
        if skip:
            skip -= 1
            continue
        if depth == 0 and text.startswith(op, at):
            parts.append(text[start:at])
            start, skip = at + len(op), len(op) - 1
    parts.append(text[start:])
    return parts if all(p.strip() for p in parts) else None


def _ternary(text: str) -> tuple[str, str, str] | None:
    """`c ? a : b` at the top level (the first `?` and its `:`), else None."""
    question, pending = -1, 0
    for at, depth in _depths(text):
        if depth < 0:
            return None
        if depth != 0:
            continue
        if text[at] == "?":
            if question < 0:
                question = at
            else:
                pending += 1
        elif text[at] == ":" and question >= 0:
            if pending:
                pending -= 1
            else:
                parts = (text[:question], text[question + 1 : at], text[at + 1 :])
                return parts if all(p.strip() for p in parts) else None
    return None


def _wrapped(text: str) -> bool:
    """Whether `text` is one parenthesised group: `(...)`."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    for at, depth in _depths(text):
        if depth == 0 and text[at] in _CLOSE:
            return at == len(text) - 1
        if depth < 0:
            return False
    return False


@lru_cache(maxsize=4096)
def reads_fields(condition: str, name: str) -> bool:
    """Whether `condition` reads `name` through a `.` (a tensor's `.dims`, a struct's field, a
    list's `.all(..)`) or its `shape()`: a value that costs as much to work out as the
    receiver, or more, which `detect` leaves to after the receiver is known to fit."""
    word = re.escape(name)
    return bool(re.search(rf"(?<![\w.]){word}\s*\.|\bshape\s*\(\s*{word}\s*\)", condition))


# --- whether a condition needs a known tensor shape (the prefilter's shape words) ----------

# Constructs through which a condition may be true although one of its inputs is unknown:
# `||` and `?:` (one side decides), the macros that absorb like them, `has()`, and `!` (the
# negation of an `&&` made false by its other side). Anything else is strict: an unknown
# input makes it unknown, never true.
_ABSORBING = re.compile(r"\|\||\?|\bhas\s*\(|\bexists(?:_one)?\s*\(|\ball\s*\(|!(?!=)")


def _top_level(expr: str, op: str) -> list[str] | None:
    """`expr` split at `op` outside parentheses, brackets and strings; None when unbalanced."""
    body = STRING_LITERAL.sub('""', expr)
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and body.startswith(op, i):
            parts.append(body[start:i])
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    parts.append(body[start:])
    return parts if depth == 0 else None


def needs_tensor_shape(spec: RuleSpec, where: Where) -> bool:
    """Whether the condition can only be true at `where`'s calls when some tensor's shape is
    known (it reads `.dims` or `.numel` through strict constructs only): then a file that
    writes no word a shape comes from (`burn_api.SHAPE_WORDS`) cannot hold a finding. False
    when unsure."""
    if spec.condition is None:
        return False
    strict_lets: set[str] = set()
    for name, expr in where.lets:
        if not _ABSORBING.search(STRING_LITERAL.sub('""', expr)) and _reads_shape(
            expr, strict_lets
        ):
            strict_lets.add(name)
    disjuncts = _top_level(spec.condition, "||")
    if disjuncts is None:
        return False
    for disjunct in disjuncts:
        conjuncts = _top_level(disjunct, "&&")
        if conjuncts is None or not any(
            not _ABSORBING.search(c) and _reads_shape(c, strict_lets) for c in conjuncts
        ):
            return False
    return True


def _reads_shape(expr: str, strict_lets: set[str]) -> bool:
    body = STRING_LITERAL.sub('""', expr)
    return ".dims" in body or ".numel" in body or bool(free_names(body) & strict_lets)

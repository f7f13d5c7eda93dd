"""The outline parse: a file parsed without the function bodies no rule can look into.

`check` reports findings only, and a finding sits at a call the rules name, in the function
that makes it; what the rules read to judge it is that function, the file's items and
signatures, and words they search the whole file for (training signals, suppression
comments). A body that mentions none of those words and declares nothing (no nested fn,
impl, const, use...) holds nothing any rule reads, so tree-sitter may skip it: the parser is
given the file minus the bodies' insides (`included_ranges`), and each skipped body becomes
an empty block at its own bytes. Every other node has the bytes, rows and columns it has in
the full parse, so the analysis runs on the outline tree unchanged. Parsing is most of a
check's time; most bodies of a file that uses one burn API use none.

The bodies are found by a small lexer (comments, strings, raw strings, char literals and
lifetimes, braces, item keywords). Whatever it is unsure of gives None, and the caller
parses the whole file: unbalanced braces, an unterminated literal, an outline tree with a
syntax error, or a skipped range that is not exactly an empty function body in it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cache
from typing import Any

from tree_sitter import Parser, Range, Tree

from panic_lens.rust.lexical import CHAR_LITERAL, STRING_LITERAL
from panic_lens.rust.lexical import WORD_BYTES as _WORD_CHARS
from panic_lens.rust.modules import block_comment_end
from panic_lens.rust.syntax import LANGUAGE

# Keywords of the items a body may declare: a body with one is kept (a nested `impl` applies
# to the whole crate, a nested const is found by name from anywhere in the file). At item
# level, those that cannot appear in a function's signature end a pending `fn` declaration.
_DECLARING = tuple(
    sorted(b"fn impl struct enum union trait type mod const static use extern macro_rules".split())
)
_ENDS_SIGNATURE = frozenset(b"struct enum union trait type mod static extern".split())
_STRING = re.compile(STRING_LITERAL, re.DOTALL)
_CHAR = re.compile(CHAR_LITERAL)
_MACRO_TOKEN = re.compile(rb"[(){}\[\]\"']|/[/*]")
_IDENT_START = re.compile(rb"\s*(?:r#)?[A-Za-z_]")
_DELIMITER = re.compile(rb"[^({\[;]*([({\[])")
_LBRACE_BYTE = ord("{")
_HASH, _R, _STAR, _QUOTE, _DQUOTE = ord("#"), ord("r"), ord("*"), ord("'"), ord('"')
_BEFORE_NO_KEYWORD = _WORD_CHARS | frozenset(b"'#")
_SPACE, _BEFORE_SIGNATURE_CONST = frozenset(b" \t\r\n"), frozenset(b"<,*")
_OPENERS, _CLOSERS = frozenset(b"({["), frozenset(b")}]")
# Token kinds: braces, the starts of comments and literals (a `'` starts a char literal, a
# lifetime or a label), a macro invocation's `!` and its delimiter, then the keywords: a
# `fn`, `macro_rules`, one that ends a signature, `const` (a const generic in a signature, an
# item elsewhere), one that may sit in a signature (`impl Trait`, `use<'a>`).
_LBRACE, _RBRACE, _LITERAL, _MACRO, _FN, _MACRO_RULES, _ENDS, _CONST, _NEUTRAL = range(9)
_TOKENS = (
    (b"{", _LBRACE), (b"}", _RBRACE), (b'"', _LITERAL), (b"'", _LITERAL), (b"//", _LITERAL),
    (b"/*", _LITERAL),
    *((b"!" + space + opener, _MACRO) for space in (b"", b" ") for opener in (b"(", b"[", b"{")),
    *((w, _FN if w == b"fn" else _MACRO_RULES if w == b"macro_rules" else _CONST if w == b"const"
       else _ENDS if w in _ENDS_SIGNATURE else _NEUTRAL) for w in _DECLARING),
)  # fmt: skip
_KINDS = tuple(kind for _, kind in _TOKENS)

Body = tuple[int, int, bool]  # the `{` and `}` offsets of a function body; declares items


def function_bodies(src: bytes) -> list[Body] | None:
    """The bodies of the file's outermost functions (free, in impls, traits and modules; not
    those inside another function or a macro), in source order; None when the lexing is
    unsure (an unterminated comment or literal, unbalanced braces).

    One Aho-Corasick pass finds every token (SIMD-fast, where `re` crawls over the bytes);
    those inside a comment, a literal or an item-level macro are passed over by position."""
    out: list[Body] = []
    depth = 0
    body_depth = -1  # the brace depth of the body being read, -1 outside one
    body_open = 0
    declares = False
    pending = False  # an item-level `fn` waits for its body
    at = 0  # what is before has been read (a literal or a macro can end past a token)
    kinds, size = _KINDS, len(src)
    for index, start, end in _token_finder().find_matches_as_indexes(src):
        if start < at:
            continue
        kind = kinds[index]
        if kind == _MACRO:
            if body_depth < 0 and start and src[start - 1] in _WORD_CHARS:
                # a macro at item level: its tokens are not items (and `-> ty!(..)` may end
                # a signature: a `fn` stays pending)
                at = _macro_end(src, end - 1)
                if at < 0:
                    return None
                continue
            if src[end - 1] != _LBRACE_BYTE:
                continue  # in a body, or `-> ! {`: only a brace counts
            kind, start = _LBRACE, end - 1
        if kind == _LBRACE:
            if pending and body_depth < 0:
                body_depth, body_open, declares, pending = depth, start, False, False
            depth += 1
        elif kind == _RBRACE:
            depth -= 1
            if depth < 0:
                return None
            if depth == body_depth:
                out.append((body_open, start, declares))
                body_depth = -1
            pending = False
        elif kind == _LITERAL:
            at = _literal_end(src, start)
            if at < 0:
                return None
        elif (start and src[start - 1] in _BEFORE_NO_KEYWORD) or (
            end < size and src[end] in _WORD_CHARS
        ):
            continue  # a keyword's letters inside a longer word, `'static`, `r#type`
        elif body_depth >= 0:
            declares = True
        elif kind == _FN:
            if _IDENT_START.match(src, end):  # not a `fn(..)` pointer type
                pending = True
        elif kind == _ENDS:
            pending = False
        elif kind == _CONST:  # a const generic or `*const T` in a signature; else an item,
            pending = pending and _in_signature(src, start)  # and a pending `fn f();` ended
        elif kind == _MACRO_RULES:
            delimiter = _DELIMITER.match(src, end)
            at = _macro_end(src, delimiter.start(1)) if delimiter is not None else -1
            if at < 0:
                return None
            pending = False
    if depth != 0 or body_depth >= 0:
        return None
    return out


@cache
def _token_finder() -> Any:
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(
        [token for token, _ in _TOKENS], matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    )


def _in_signature(src: bytes, at: int) -> bool:
    """The code before `at`, whitespace aside, ends with `<`, `,` or `*`."""
    while at > 0 and src[at - 1] in _SPACE:
        at -= 1
    return at > 0 and src[at - 1] in _BEFORE_SIGNATURE_CONST


def _literal_end(src: bytes, start: int) -> int:
    """Where the comment, string, char literal, lifetime or label at `start` ends (-1: never
    closed)."""
    first = src[start]
    if first == _QUOTE:
        char = _CHAR.match(src, start)
        return char.end() if char is not None else start + 1
    if first == _DQUOTE:
        hashes = start
        while hashes > 0 and src[hashes - 1] == _HASH:
            hashes -= 1
        if hashes > 0 and src[hashes - 1] == _R and _prefix_starts(src, hashes - 1):
            close = src.find(b'"' + b"#" * (start - hashes), start + 1)
            return -1 if close < 0 else close + 1 + start - hashes
        string = _STRING.match(src, start)
        return string.end() if string is not None else -1
    if src[start + 1] == _STAR:
        return block_comment_end(src, start + 2)
    newline = src.find(b"\n", start)
    return len(src) if newline < 0 else newline


def _prefix_starts(src: bytes, r: int) -> bool:
    """The `r` at `r` starts a raw string's prefix (`r"`, `br"`, `cr"`), not an identifier."""
    before = src[r - 1] if r > 0 else None
    if before in (ord("b"), ord("c")):
        before = src[r - 2] if r > 1 else None
    return before is None or before not in _WORD_CHARS


def _macro_end(src: bytes, opener: int) -> int:
    """Past the delimiter that closes the one at `opener` (-1: never closed)."""
    depth = 0
    at = opener
    search = _MACRO_TOKEN.search
    while (m := search(src, at)) is not None:
        start, at = m.span()
        first = src[start]
        if first in _OPENERS:
            depth += 1
        elif first in _CLOSERS:
            depth -= 1
            if depth == 0:
                return at
        else:
            at = _literal_end(src, start)
            if at < 0:
                return -1
    return -1


def skippable(
    src: bytes, bodies: list[Body], words: Iterable[bytes], names: Iterable[bytes]
) -> list[tuple[int, int]]:
    """The bodies to skip, as (`{`, `}`) offsets: those that declare nothing and mention no
    word of `words` (anywhere, inside a longer word too) nor a name of `names` (as a whole
    word)."""
    hits: list[int] = []
    for word in words:
        at = src.find(word)
        while at >= 0:
            hits.append(at)
            at = src.find(word, at + 1)
    for name in names:
        at = src.find(name)
        while at >= 0:
            after = at + len(name)
            if (at == 0 or src[at - 1] not in _WORD_CHARS) and (
                after >= len(src) or src[after] not in _WORD_CHARS
            ):
                hits.append(at)
            at = src.find(name, after)
    hits.sort()
    out = []
    for open_, close, declares in bodies:
        if declares:
            continue
        i = bisect_right(hits, open_)
        if i < len(hits) and hits[i] < close:
            continue
        out.append((open_, close))
    return out


def parse_outline(src: bytes, skipped: list[tuple[int, int]]) -> Tree | None:
    """`src` parsed without the insides of the `skipped` bodies; None when the outline tree
    has a syntax error or a skipped body is not exactly an empty function body in it."""
    parser = _parser()
    parser.included_ranges = _ranges(src, skipped)
    try:
        tree = parser.parse(src)
    finally:
        parser.included_ranges = []
    root = tree.root_node
    if root.has_error:
        return None
    for open_, close in skipped:
        block = root.descendant_for_byte_range(open_, close + 1)
        if (
            block is None
            or block.type != "block"
            or block.start_byte != open_
            or block.end_byte != close + 1
            or block.named_child_count
            or block.parent is None
            or block.parent.type != "function_item"
        ):
            return None
    return tree


@cache
def _parser() -> Parser:
    """This process's outline parser (its included ranges change with every file)."""
    return Parser(LANGUAGE)


def _ranges(src: bytes, skipped: list[tuple[int, int]]) -> list[Range]:
    """The included ranges: everything but each skipped body's inside (its braces stay)."""
    ranges = []
    start, row, line_start, counted = 0, 0, 0, 0

    def point(at: int) -> tuple[int, int]:
        nonlocal row, line_start, counted
        row += src.count(b"\n", counted, at)
        if row:
            line_start = src.rfind(b"\n", 0, at) + 1
        counted = at
        return row, at - line_start

    here = point(0)
    for open_, close in skipped:
        end = open_ + 1
        ranges.append(Range(here, point(end), start, end))
        start = close
        here = point(close)
    ranges.append(Range(here, point(len(src)), start, len(src)))
    return ranges

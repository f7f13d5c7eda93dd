"""Lookups by byte search instead of walks over the tree: declarations by their keywords,
calls by their callee's name, identifiers and comments by their words.

A byte search, then one descent to the node at each occurrence: every such node's text sits at
its byte range, so nothing is missed, and occurrences inside longer words, strings or comments
land on another node and are dropped. For a handful of words this is far cheaper than a query,
which walks the whole tree (the property tests compare every function here with a walk).

A descent (and a step to a parent) costs the node's depth: tree-sitter nodes keep no parent
pointer. On a pathologically deep tree (10,000 nested blocks, each with its `fn`) thousands
of descents cost quadratic time, so each lookup watches its clock and, past a budget no
ordinary file comes near, gives the same answer by one walk instead (`Descents`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache
from typing import Any

from panic_lens.rust.lexical import WORD_BYTES as _WORD_BYTES
from panic_lens.rust.syntax import (
    _COMMENT_KINDS,
    _COMMENT_PARTS,
    Node,
    Tree,
    call_name,
    calls_in,
    declarations_in,
    node_text,
    nodes_of_kinds,
)

# Seconds of descents one lookup may spend before it walks the tree instead (on ordinary files
# the descents cost a fraction of a walk; a pathologically deep file reverses that).
DESCENT_BUDGET_S = 0.025


class TooDeep(Exception):
    """The descents went over budget: the caller answers by one walk."""


class Descents:
    """Counts one lookup's descents and checks the clock every 128 of them."""

    __slots__ = ("_count", "_deadline")

    def __init__(self) -> None:
        self._count = 0
        self._deadline = time.perf_counter() + DESCENT_BUDGET_S

    def tick(self) -> None:
        self._count += 1
        if not self._count & 127 and time.perf_counter() > self._deadline:
            raise TooDeep


# Each indexed declaration has its keyword as a direct child token: found by a byte search,
# a declaration costs one descent instead of a walk over the whole tree.
_KEYWORD_KINDS: dict[bytes, tuple[str, frozenset[str]]] = {
    b"use": ("use", frozenset({"use_declaration"})),
    b"extern": ("use", frozenset({"extern_crate_declaration"})),
    b"fn": ("item", frozenset({"function_item", "function_signature_item"})),
    b"struct": ("item", frozenset({"struct_item"})),
    b"enum": ("item", frozenset({"enum_item"})),
    b"union": ("item", frozenset({"union_item"})),
    b"trait": ("item", frozenset({"trait_item"})),
    b"type": ("item", frozenset({"type_item"})),
    b"mod": ("item", frozenset({"mod_item"})),
    b"const": ("item", frozenset({"const_item"})),
    b"static": ("item", frozenset({"static_item"})),
    b"impl": ("impl", frozenset({"impl_item"})),
}
_KEYWORD_LIST = tuple(_KEYWORD_KINDS)


def declarations(
    tree: Tree, src: bytes, start: int = 0, end: int | None = None
) -> dict[str, list[Node]]:
    """`index(tree)`'s use, item and impl lists, found from the keywords instead of a walk:
    each `use`, item and impl node owns its keyword token, so a keyword whose token's parent
    is such a node finds it (the property tests compare the two on complete and broken
    text). Keywords in comments, strings, longer words and other constructs (`impl Trait`,
    `*const T`) land on another node and are dropped. Several times faster on a whole file.
    With a byte range: the declarations that start inside it."""
    stop = len(src) if end is None else end
    try:
        return _declarations(tree, src, start, stop)
    except TooDeep:
        return declarations_in(tree, start, stop)


def _declarations(tree: Tree, src: bytes, start: int, stop: int) -> dict[str, list[Node]]:
    root = tree.root_node
    descents = Descents()
    found: dict[str, dict[int, Node]] = {"use": {}, "item": {}, "impl": {}}
    size = len(src)
    part = src if start == 0 and stop == size else src[start:stop]
    for index, at, after in _keyword_finder().find_matches_as_indexes(part):
        at, after = at + start, after + start
        if (at and src[at - 1] in _WORD_BYTES) or (after < size and src[after] in _WORD_BYTES):
            continue  # inside a longer word (`reuse`, `model`)
        descents.tick()
        token = root.descendant_for_byte_range(at, after)
        if token is None or (token.start_byte, token.end_byte) != (at, after):
            continue
        kind, types = _KEYWORD_KINDS[_KEYWORD_LIST[index]]
        owner = token.parent
        if owner is not None and owner.type in types and start <= owner.start_byte < stop:
            found[kind][owner.id] = owner
    return {k: sorted(nodes.values(), key=lambda n: n.start_byte) for k, nodes in found.items()}


@cache
def _keyword_finder() -> Any:
    """The keywords by one Aho-Corasick pass (SIMD-fast; `re` with `\\b` crawls byte by
    byte): leftmost-first and non-overlapping, which hides no keyword, since a whole-word
    occurrence overlaps no other keyword's occurrence and none is a prefix of another."""
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(
        list(_KEYWORD_LIST), matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    )


def calls_named(
    tree: Tree, src: bytes, names: Iterable[str], start: int = 0, end: int | None = None
) -> list[Node]:
    """The call expressions inside bytes [start, end) whose `call_name` is one of `names`, in
    the order of `calls_in` (source order, an outer call before the inner one it starts with).

    A byte search per name, then one descent per occurrence: every name node's text sits at
    its byte range, so no call is missed, and a handful of names costs far less than visiting
    every call of the file."""
    stop = len(src) if end is None else end
    found: dict[int, Node] = {}
    try:
        for node in _exact_nodes(tree, src, names, start, stop):
            call = _call_named_by(node)
            if call is not None and start <= call.start_byte and call.end_byte <= stop:
                found[call.id] = call
    except TooDeep:
        wanted = frozenset(names)
        found = {}
        for call in calls_in(tree, start, stop):
            name = call_name(call)
            if name is not None and node_text(name, src) in wanted:
                found[call.id] = call
    return sorted(found.values(), key=lambda n: (n.start_byte, -n.end_byte))


def _exact_nodes(
    tree: Tree, src: bytes, words: Iterable[str], start: int, end: int | None
) -> Iterator[Node]:
    """The node at each occurrence of one of `words` in bytes [start, end) whose byte range
    is exactly that occurrence; occurrences inside a longer word have none and are skipped
    before any descent (`new` of `renew` or `new_tensor`)."""
    root = tree.root_node
    descents = Descents()
    stop = len(src) if end is None else end
    for at, after in _occurrences(src, frozenset(words), start, stop):
        inside_word = (at > 0 and src[at - 1] in _WORD_BYTES) or (
            after < len(src) and src[after] in _WORD_BYTES
        )
        if inside_word:
            continue
        descents.tick()
        node = root.descendant_for_byte_range(at, after)
        if node is not None and (node.start_byte, node.end_byte) == (at, after):
            yield node


def _occurrences(
    src: bytes, words: frozenset[str], start: int, stop: int
) -> Iterator[tuple[int, int]]:
    """Where `words` occur in bytes [start, stop): every whole-word occurrence, perhaps with
    others. Words of word bytes only go through one Aho-Corasick pass, leftmost-longest and
    non-overlapping, which hides no whole-word occurrence: a match that is not one lies on
    word bytes, on which no whole word can start."""
    # a word or two: `bytes.find` each, no automaton (most sets asked are one name, once)
    finder = _words_finder(words) if len(words) > _FIND_EACH else None
    if finder is None:
        for word in sorted(words):
            needle = word.encode()
            at = src.find(needle, start, stop)
            while at >= 0:
                yield at, at + len(needle)
                at = src.find(needle, at + len(needle), stop)
        return
    part = src if start == 0 and stop == len(src) else src[start:stop]
    for _, at, after in finder.find_matches_as_indexes(part):
        yield at + start, after + start


_FIND_EACH = 2


@lru_cache(maxsize=256)
def _words_finder(words: frozenset[str]) -> Any:
    """The automaton for `words`; None when one holds a byte that is not a word byte."""
    import ahocorasick_rs

    needles = [w.encode() for w in sorted(words)]
    if not needles or any(b not in _WORD_BYTES for n in needles for b in n):
        return None
    return ahocorasick_rs.BytesAhoCorasick(
        needles, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST
    )


_CALLEE_PARTS = frozenset({"field_expression", "scoped_identifier", "generic_function"})


def _call_named_by(name: Node) -> Node | None:
    """The call_expression whose `call_name` is `name`, if any (at most three levels up:
    `generic_function` > `scoped_identifier` or `field_expression` > the name)."""
    if name.type not in ("identifier", "field_identifier"):
        return None
    node = name
    for _ in range(3):
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "call_expression":
            return parent if call_name(parent) == name else None
        if parent.type not in _CALLEE_PARTS:
            return None
        node = parent
    return None


def word_nodes(
    tree: Tree, src: bytes, words: Iterable[str], kinds: frozenset[str],
    start: int = 0, end: int | None = None,
) -> list[Node]:  # fmt: skip
    """Nodes of `kinds` whose text is exactly one of `words`, in source order (those that lie
    in bytes [start, end) when given).

    A byte search then one descent per occurrence: for a handful of rare words this is far
    cheaper than a query, which walks the whole tree. Every such node's text sits at its byte
    range, so no node is missed; occurrences inside longer tokens, strings or comments land on
    another node and are dropped.
    """
    try:
        nodes = [n for n in _exact_nodes(tree, src, words, start, end) if n.type in kinds]
    except TooDeep:
        wanted = {w.encode() for w in words}
        stop = len(src) if end is None else end
        nodes = [n for n in nodes_of_kinds(tree.root_node, kinds, start, stop)
                 if start <= n.start_byte and n.end_byte <= stop
                 and src[n.start_byte : n.end_byte] in wanted]  # fmt: skip
    found = {n.start_byte: n for n in nodes}
    return [found[k] for k in sorted(found)]


def comments_mentioning(tree: Tree, src: bytes, word: bytes) -> list[Node]:
    """Line and block comments whose text contains `word`, in source order (found by a byte
    search, as `word_nodes`: no walk over the whole tree)."""
    try:
        return _comments_mentioning(tree, src, word)
    except TooDeep:
        comments = nodes_of_kinds(tree.root_node, _COMMENT_KINDS, 0, len(src))
        return [c for c in comments if word in src[c.start_byte : c.end_byte]]


def _comments_mentioning(tree: Tree, src: bytes, word: bytes) -> list[Node]:
    root = tree.root_node
    descents = Descents()
    found: dict[int, Node] = {}
    at = src.find(word)
    while at >= 0:
        descents.tick()
        node = root.descendant_for_byte_range(at, at + len(word))
        for _ in range(3):  # a doc comment's text is a child of the comment node
            if node is None or node.type in _COMMENT_KINDS:
                break
            node = node.parent if node.type in _COMMENT_PARTS else None
        if node is not None and node.type in _COMMENT_KINDS:
            found[node.start_byte] = node
        at = src.find(word, at + 1)
    return [found[k] for k in sorted(found)]

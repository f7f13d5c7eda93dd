"""tree-sitter-rust parsing and node helpers: spans, text, iterative walks, call shapes.

One module-level Language and Parser, built once. Every traversal here is iterative, so a
10,000-deep expression never hits Python's recursion limit.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from functools import cache, lru_cache

import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from panic_lens.model import Point, Span
from panic_lens.rust.lexical import WORD_BYTES

LANGUAGE = Language(tree_sitter_rust.language())
_PARSER = Parser(LANGUAGE)

# One pass in C over the tree finds every node the analysis layer indexes (a Python walk per
# consumer cost several times more on large files).
_DECLARATIONS = """
    [(use_declaration) (extern_crate_declaration)] @use
    [(function_item) (struct_item) (enum_item) (union_item) (trait_item) (type_item) (mod_item)
     (const_item) (static_item) (function_signature_item)] @item
    (impl_item) @impl
"""
_QUERIES = {
    "index": "(call_expression) @call\n" + _DECLARATIONS,
    "call": "(call_expression) @call",
    "declaration": _DECLARATIONS,
}
INDEX_KINDS = ("call", "use", "item", "impl")
FUNCTION_KINDS = frozenset({"function_item", "closure_expression"})
SCOPE_KINDS = frozenset({"block", "declaration_list", "source_file"})
# Path-like nodes whose last segment names a function, a type or a module.
PATH_KINDS = frozenset(
    {
        "identifier",
        "type_identifier",
        "scoped_identifier",
        "scoped_type_identifier",
        "generic_type",
        "generic_function",
        "field_identifier",
        "self",
        "super",
        "crate",
    }
)

__all__ = [
    "LANGUAGE",
    "Node",
    "Tree",
    "ancestors",
    "call_name",
    "call_parts",
    "calls_in",
    "child_by_field",
    "declarations_in",
    "enclosing",
    "enclosing_function",
    "has_error",
    "index",
    "index_in",
    "line_indent",
    "method_call",
    "node_at",
    "node_text",
    "nodes_of_kinds",
    "parse",
    "parse_code",
    "path_call",
    "path_segments",
    "span_of",
    "starts_between",
    "statement_of",
    "strip_wrappers",
    "struct_literal_parts",
    "walk",
]


def parse(src: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse Rust source bytes; pass the previous tree (already `.edit()`ed) to re-parse faster."""
    return _PARSER.parse(src, old_tree) if old_tree is not None else _PARSER.parse(src)


# The standard macros whose arguments are expressions written for their values: tree-sitter
# leaves a macro's arguments as tokens, so a call in `println!("{}", x.permute([0, 0]))` or
# `assert_eq!(a.reshape([2, 3]), b)` is no call node. (`matches!` takes a pattern: not here.
# `vec![..]` is read as the array it holds, VEC below.)
EXPRESSION_MACROS = frozenset(
    b"print println eprint eprintln format format_args write writeln panic todo unimplemented "
    b"unreachable assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne "
    b"dbg".split()
)


# `vec![a, b]` and `vec![x; n]` hold what an array does: with `vec!` read as spaces they are
# the array expressions `[a, b]` and `[x; n]` (a path-qualified `std::vec![` is left alone).
VEC = b"vec"


def parse_code(
    src: bytes, old: tuple[Tree, bytes, list[tuple[int, int, int]]] | None = None
) -> Tree:
    """Parse user code for analysis: as `parse`, with the `!` of each expression macro's
    `name!(` read as a space and `vec![` as `    [` (`code_view`), so that the calls in their
    arguments are call nodes. Every byte offset is the source's; the tree's text differs at
    those bytes only.

    `old`: the previous text's tree, already `.edit()`ed, that text, and the edits (start, end,
    inserted length, in the old text's offsets, in order, not overlapping). The tree is re-parsed
    from only when every `!` outside the edits is read as before: tree-sitter trusts the bytes
    outside the edits to be unchanged, and typing a macro's name changes how a `!` after it
    is read. Otherwise the text is parsed afresh."""
    tree = old[0] if old is not None and _same_views(old[1], src, old[2]) else None
    return parse(code_view(src), tree)


def code_view(src: bytes) -> bytes:
    """`src` with the `!` of each expression macro invocation `name!(` made a space, and the
    `vec!` of each `vec![` spaces."""
    bangs = macro_bangs(src)
    if not bangs:
        return src
    view = bytearray(src)
    for at in bangs:
        if src[at + 1 : at + 2] == b"[":
            view[at - len(VEC) : at + 1] = b" " * (len(VEC) + 1)
        else:
            view[at] = 0x20
    return bytes(view)


def macro_bangs(src: bytes) -> list[int]:
    """The offsets of the `!` of `name!(` for the names of EXPRESSION_MACROS (the name a
    whole word, a path's last segment included: `std::println!(`), and of `vec![` (a whole
    word, not a path's segment). The last texts' answers are kept: a keystroke's re-parse
    asks about the text before it and the text after it."""
    found = _kept_bangs(src)
    if found is None:
        found = _bangs_between(src, 0, len(src))
        _keep_bangs(src, found)
    return found


_BANGS: list[tuple[bytes, list[int]]] = []


def _kept_bangs(src: bytes) -> list[int] | None:
    for text, found in _BANGS:
        if text is src:
            return found
    return None


def _keep_bangs(src: bytes, found: list[int]) -> None:
    _BANGS.insert(0, (src, found))
    del _BANGS[3:]


def _bangs_between(src: bytes, lo: int, hi: int) -> list[int]:
    """`macro_bangs` of `src` whose `!` lies in [lo, hi) (names read whole, also before lo)."""
    out = []
    at = src.find(b"!(", lo, hi + 1)
    while 0 <= at < hi:
        start = at
        while start > 0 and src[start - 1] in WORD_BYTES:
            start -= 1
        if src[start:at] in EXPRESSION_MACROS:
            out.append(at)
        at = src.find(b"!(", at + 2, hi + 1)
    at = src.find(b"vec![", max(lo - len(VEC), 0), hi + 2)
    while at >= 0:
        before = src[at - 1] if at > 0 else 0x20
        if lo <= at + len(VEC) < hi and before not in WORD_BYTES and before != ord(":"):
            out.append(at + len(VEC))
        at = src.find(b"vec![", at + 5, hi + 2)
    out.sort()
    return out


def _edited_bangs(old: bytes, new: bytes, edits: list[tuple[int, int, int]]) -> list[int]:
    """`macro_bangs(new)`, from `old`'s and the edits that turn `old` into `new` (start, end,
    inserted length; in order, not overlapping): the text around each edit is searched again,
    and the rest of `old`'s bangs are moved. A bang's reading depends on its name's word (and
    the byte before it) and on the bytes `!(` or `vec![`: it can change only when those meet an
    edit, so the search starts a byte before the inserted text and ends after the word that
    follows it. A keystroke in a 5,000-line file: a few bytes searched, not the file."""
    before = _kept_bangs(old)
    if before is None:
        return macro_bangs(new)
    windows = []
    for lo, hi in _inserted(edits):
        while hi < len(new) and new[hi] in WORD_BYTES:
            hi += 1
        windows.append((max(lo - 1, 0), hi + 1))
    found = []
    for at in before:
        moved = _moved(at, edits)
        if moved is not None and not any(lo <= moved < hi for lo, hi in windows):
            found.append(moved)
    for lo, hi in windows:
        found += _bangs_between(new, lo, hi)
    found = sorted(set(found))
    _keep_bangs(new, found)
    return found


def _same_views(old: bytes, new: bytes, edits: list[tuple[int, int, int]]) -> bool:
    """Whether `code_view` rewrote the same bytes of `old` and `new` outside `edits`."""
    moved = [at for at in (_moved(at, edits) for at in macro_bangs(old)) if at is not None]
    inside = _inserted(edits)
    after = _kept_bangs(new)
    if after is None:
        after = _edited_bangs(old, new, edits)
    kept = [at for at in after if not any(a <= at < b for a, b in inside)]
    return moved == kept


def _inserted(edits: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Where each edit's inserted text lies in the new text: [start, end) byte ranges."""
    out = []
    delta = 0
    for start, end, inserted in edits:
        out.append((start + delta, start + delta + inserted))
        delta += inserted - (end - start)
    return out


def _moved(at: int, edits: list[tuple[int, int, int]]) -> int | None:
    """Where offset `at` of the old text is after `edits`; None inside an edited range."""
    delta = 0
    for start, end, inserted in edits:
        if at < start:
            break
        if at < end:
            return None
        delta += inserted - (end - start)
    return at + delta


@cache
def _query(name: str) -> Query:
    """Compiled on first use (a few ms each): a `check` run finds calls and declarations by
    byte search and mostly never needs them."""
    return Query(LANGUAGE, _QUERIES[name])


def index(tree: Tree) -> dict[str, list[Node]]:
    """Calls, `use` declarations, items and impl blocks of the tree, each list in source order.

    One traversal: a query's cost is its walk over the tree, whatever it captures, so every
    kind is captured in the same pass.
    """
    return _captures(QueryCursor(_query("index")), tree.root_node, INDEX_KINDS)


def index_in(tree: Tree, start: int, end: int) -> dict[str, list[Node]]:
    """The calls inside bytes [start, end) and the `use`, item and impl nodes that overlap
    them, in one walk that stays in the range."""
    cursor = QueryCursor(_query("index"))
    cursor.set_byte_range(start, end)
    found = _captures(cursor, tree.root_node, INDEX_KINDS)
    found["call"] = [n for n in found["call"] if start <= n.start_byte and n.end_byte <= end]
    return found


def calls_in(tree: Tree, start: int, end: int) -> list[Node]:
    """The call expressions that lie inside bytes [start, end), in source order."""
    cursor = QueryCursor(_query("call"))
    cursor.set_byte_range(start, end)
    found = _captures(cursor, tree.root_node, ("call",))["call"]
    return [n for n in found if start <= n.start_byte and n.end_byte <= end]


def declarations_in(tree: Tree, start: int, end: int) -> dict[str, list[Node]]:
    """The `use`, item and impl nodes that start inside bytes [start, end), by one walk (what
    `rust.search.declarations` finds by keyword, when its descents get too costly)."""
    cursor = QueryCursor(_query("declaration"))
    cursor.set_byte_range(start, end)
    found = _captures(cursor, tree.root_node, ("use", "item", "impl"))
    return {k: [n for n in nodes if start <= n.start_byte < end] for k, nodes in found.items()}


def nodes_of_kinds(root: Node, kinds: frozenset[str], start: int, end: int) -> list[Node]:
    """Every node of `kinds` (node types) under `root` that overlaps bytes [start, end), in
    source order, by one walk."""
    cursor = QueryCursor(_kinds_query(kinds))
    cursor.set_byte_range(start, end)
    return _captures(cursor, root, ("n",))["n"]


@lru_cache(maxsize=16)
def _kinds_query(kinds: frozenset[str]) -> Query:
    return Query(LANGUAGE, "[" + " ".join(f"({k})" for k in sorted(kinds)) + "] @n")


def _captures(cursor: QueryCursor, root: Node, kinds: tuple[str, ...]) -> dict[str, list[Node]]:
    found = cursor.captures(root)
    return {k: sorted(found.get(k, ()), key=lambda n: n.start_byte) for k in kinds}


# A node known by byte range and type only: where an edit moved it, before it is looked up.
NodeSpan = tuple[int, int, str]


class LostNode(Exception):
    """A node of the text before an edit has no counterpart in the new tree."""


def node_span(node: Node) -> NodeSpan:
    return node.start_byte, node.end_byte, node.type


def node_at(root: Node, start: int, end: int, kind: str) -> Node | None:
    """The node of type `kind` spanning exactly bytes [start, end) under `root`, if any (the
    innermost node there, or one of its ancestors with the same range)."""
    found = root.descendant_for_byte_range(start, end)
    while found is not None and found.start_byte == start and found.end_byte == end:
        if found.type == kind:
            return found
        found = found.parent
    return None


def starts_between(nodes: list[Node], lo: int, hi: int) -> bool:
    """Whether one of `nodes` (in source order) starts in bytes [lo, hi)."""
    at = bisect_left(nodes, lo, key=lambda n: n.start_byte)
    return at < len(nodes) and nodes[at].start_byte < hi


def span_of(node: Node) -> Span:
    """The node's byte range with 0-based row / byte-column ends."""
    (sr, sc), (er, ec) = node.start_point, node.end_point
    return Span(node.start_byte, node.end_byte, Point(sr, sc), Point(er, ec))


def node_text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def walk(node: Node) -> Iterator[Node]:
    """Every node under (and including) `node`, pre-order, without recursion."""
    cursor = node.walk()
    depth = 0
    while True:
        yield cursor.node  # type: ignore[misc]
        if cursor.goto_first_child():
            depth += 1
            continue
        while depth > 0 and not cursor.goto_next_sibling():
            cursor.goto_parent()
            depth -= 1
        if depth == 0:
            return


def child_by_field(node: Node | None, name: str) -> Node | None:
    return node.child_by_field_name(name) if node is not None else None


def struct_literal_parts(
    literal: Node, text: Callable[[Node], str]
) -> tuple[dict[str, Node | None], Node | None]:
    """A struct literal's fields as written (name -> value expression; a shorthand field
    `T { groups }` gives its own name; None: no value to read, as in half-typed code) and its
    `..base` expression (None without one; a `..` with nothing after it is itself)."""
    written: dict[str, Node | None] = {}
    base = None
    body = child_by_field(literal, "body")
    for item in body.named_children if body is not None else ():
        if item.type == "base_field_initializer":
            base = item.named_children[0] if item.named_children else item
        elif item.type == "field_initializer":
            field = child_by_field(item, "field")
            if field is not None:
                written[text(field)] = child_by_field(item, "value")
        elif item.type == "shorthand_field_initializer":
            written[text(item)] = item.named_children[0] if item.named_children else item
    return written, base


def has_error(tree_or_node: Tree | Node) -> bool:
    """True when the tree contains an ERROR or MISSING node."""
    node = tree_or_node.root_node if isinstance(tree_or_node, Tree) else tree_or_node
    return node.has_error


def strip_wrappers(node: Node | None) -> Node | None:
    """Look through parentheses, `&`/`&mut` and `?` to the inner expression."""
    while node is not None and node.type in (
        "parenthesized_expression",
        "reference_expression",
        "try_expression",
    ):
        inner = child_by_field(node, "value")
        node = inner if inner is not None else next(iter(node.named_children), None)
    return node


def call_parts(call: Node) -> tuple[Node | None, list[Node]]:
    """(callee, argument nodes) of a call_expression; comments are not arguments."""
    args = call.child_by_field_name("arguments")
    items = [a for a in (args.named_children if args else []) if a.type not in _COMMENT_KINDS]
    return call.child_by_field_name("function"), items


def call_name(call: Node) -> Node | None:
    """The name node of a call_expression's callee as `CallSite.name` reads it: `m` of
    `recv.m(..)`, `f` of `f(..)` and `a::f(..)` (generic arguments looked through), else None;
    cheap, so that calls nobody asks about need nothing more."""
    callee = call.child_by_field_name("function")
    if callee is not None and callee.type == "generic_function":
        callee = callee.child_by_field_name("function")
    if callee is None:
        return None
    kind = callee.type
    if kind == "identifier":
        return callee
    if kind == "field_expression":
        return callee.child_by_field_name("field")
    if kind == "scoped_identifier":
        return callee.child_by_field_name("name")
    return None


def method_call(node: Node) -> tuple[Node, Node, list[Node]] | None:
    """(receiver, method name, args) of `recv.name(args)` or `recv.name::<T>(args)`, else None."""
    if node.type != "call_expression":
        return None
    callee = node.child_by_field_name("function")  # (the arguments only for a method call)
    if callee is not None and callee.type == "generic_function":
        callee = callee.child_by_field_name("function")
    if callee is None or callee.type != "field_expression":
        return None
    receiver, name = callee.child_by_field_name("value"), callee.child_by_field_name("field")
    if receiver is None or name is None or name.type != "field_identifier":
        return None
    return receiver, name, call_parts(node)[1]


def path_call(node: Node) -> tuple[Node, Node, list[Node]] | None:
    """(owner path, function name, args) of `Owner::name(args)` (`a::Owner::name`), else
    None."""
    callee = node.child_by_field_name("function") if node.type == "call_expression" else None
    if callee is None or callee.type != "scoped_identifier":
        return None
    owner, name = callee.child_by_field_name("path"), callee.child_by_field_name("name")
    if owner is None or name is None:
        return None
    return owner, name, call_parts(node)[1]


def ancestors(node: Node, root: Node | None = None) -> list[Node]:
    """The proper ancestors of `node`, innermost first.

    With the tree's `root`, found top-down in O(depth): tree-sitter's `Node.parent` searches
    from the root itself, so climbing parent by parent costs O(depth²) in deep expressions.
    """
    if root is None:
        out, cur = [], node.parent
        while cur is not None:
            out.append(cur)
            cur = cur.parent
        return out
    path: list[Node] = []
    cur_down: Node | None = root
    while cur_down is not None and cur_down != node:
        path.append(cur_down)
        cur_down = cur_down.child_with_descendant(node)
    path.reverse()
    return path if cur_down is not None else []


def enclosing(
    node: Node, kinds: frozenset[str] | set[str], root: Node | None = None
) -> Node | None:
    """The nearest proper ancestor of one of `kinds` (pass `root` for deep trees)."""
    return next((a for a in ancestors(node, root) if a.type in kinds), None)


def enclosing_function(node: Node, root: Node | None = None) -> Node | None:
    """The nearest enclosing `fn` item (closures are looked through)."""
    return enclosing(node, {"function_item"}, root)


def statement_of(node: Node, root: Node | None = None) -> Node | None:
    """The statement (child of a block) that contains `node`, if any."""
    child = node
    for parent in ancestors(node, root):
        if parent.type == "block":
            return child
        child = parent
    return None


def line_indent(src: bytes, node: Node) -> str:
    """The whitespace that starts the node's first line."""
    start = src.rfind(b"\n", 0, node.start_byte) + 1
    line = src[start : node.start_byte]
    return line[: len(line) - len(line.lstrip())].decode("utf-8", errors="replace")


def path_segments(node: Node, src: bytes) -> list[str] | None:
    """`a::b::C<T>` -> ["a", "b", "C"]; a leading `::` gives a leading "". None for non-paths.

    Generic arguments are dropped (`Tensor::<2, Int>::zeros` -> ["Tensor", "zeros"]);
    a qualified `<T as Trait>::m` is not a plain path and gives None.
    """
    out: list[str] = []
    cur: Node | None = node
    while cur is not None:
        kind = cur.type
        if kind in ("generic_type", "generic_function"):
            cur = child_by_field(cur, "type") or child_by_field(cur, "function")
            continue
        if kind in ("scoped_identifier", "scoped_type_identifier"):
            name = child_by_field(cur, "name")
            if name is None:
                return None
            out.append(node_text(name, src))
            cur = child_by_field(cur, "path")
            if cur is None:  # `::burn::x`
                out.append("")
            continue
        if kind in PATH_KINDS:
            out.append(node_text(cur, src))
            break
        return None
    out.reverse()
    return out


_COMMENT_KINDS = frozenset({"line_comment", "block_comment"})
_COMMENT_PARTS = frozenset({"doc_comment", "outer_doc_comment_marker", "inner_doc_comment_marker"})

"""tree-sitter-rust parsing and node helpers: spans, text, iterative walks, call shapes.

One module-level Language and Parser, built once. Every traversal here is iterative, so a
10,000-deep expression never hits Python's recursion limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from panic_lens.rules.base import Point, Span

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
_INDEX_QUERY = Query(LANGUAGE, "(call_expression) @call\n" + _DECLARATIONS)
_DECLARATIONS_QUERY = Query(LANGUAGE, _DECLARATIONS)
_CALL_QUERY = Query(LANGUAGE, "(call_expression) @call")
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
    "calls_named",
    "child_by_field",
    "comments_mentioning",
    "declarations",
    "enclosing",
    "enclosing_function",
    "has_error",
    "index",
    "index_in",
    "line_indent",
    "method_call",
    "node_text",
    "parse",
    "path_segments",
    "span_of",
    "statement_of",
    "strip_wrappers",
    "walk",
    "word_nodes",
]


def parse(src: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse Rust source bytes; pass the previous tree (already `.edit()`ed) to re-parse faster."""
    return _PARSER.parse(src, old_tree) if old_tree is not None else _PARSER.parse(src)


def index(tree: Tree, *, calls: bool = True) -> dict[str, list[Node]]:
    """Calls, `use` declarations, items and impl blocks of the tree, each list in source order
    (`calls=False`: no "call" list, for callers that find calls by name with `calls_named`).

    One traversal: a query's cost is its walk over the tree (about 12 ms for a 5,000-line file
    whatever it captures), so every kind is captured in the same pass.
    """
    if not calls:
        return _captures(QueryCursor(_DECLARATIONS_QUERY), tree.root_node, INDEX_KINDS[1:])
    return _captures(QueryCursor(_INDEX_QUERY), tree.root_node, INDEX_KINDS)


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
_KEYWORDS = re.compile(rb"\b(?:" + b"|".join(_KEYWORD_KINDS) + rb")\b")


def declarations(
    tree: Tree, src: bytes, start: int = 0, end: int | None = None
) -> dict[str, list[Node]]:
    """`index(tree, calls=False)` found from the keywords instead of a walk: each `use`, item
    and impl node owns its keyword token, so a keyword whose token's parent is such a node
    finds it (the property tests compare the two on complete and broken text). Keywords in
    comments, strings, longer words and other constructs (`impl Trait`, `*const T`) land on
    another node and are dropped. Several times faster on a whole file. With a byte range:
    the declarations that start inside it."""
    root = tree.root_node
    stop = len(src) if end is None else end
    found: dict[str, dict[int, Node]] = {"use": {}, "item": {}, "impl": {}}
    for match in _KEYWORDS.finditer(src, start, stop):
        at, after = match.span()
        token = root.descendant_for_byte_range(at, after)
        if token is None or (token.start_byte, token.end_byte) != (at, after):
            continue
        kind, types = _KEYWORD_KINDS[match.group()]
        owner = token.parent
        if owner is not None and owner.type in types and start <= owner.start_byte < stop:
            found[kind][owner.id] = owner
    return {k: sorted(nodes.values(), key=lambda n: n.start_byte) for k, nodes in found.items()}


def index_in(tree: Tree, start: int, end: int) -> dict[str, list[Node]]:
    """The calls inside bytes [start, end) and the `use`, item and impl nodes that overlap
    them, in one walk that stays in the range."""
    cursor = QueryCursor(_INDEX_QUERY)
    cursor.set_byte_range(start, end)
    found = _captures(cursor, tree.root_node, INDEX_KINDS)
    found["call"] = [n for n in found["call"] if start <= n.start_byte and n.end_byte <= end]
    return found


def calls_in(tree: Tree, start: int, end: int) -> list[Node]:
    """The call expressions that lie inside bytes [start, end), in source order."""
    cursor = QueryCursor(_CALL_QUERY)
    cursor.set_byte_range(start, end)
    found = _captures(cursor, tree.root_node, ("call",))["call"]
    return [n for n in found if start <= n.start_byte and n.end_byte <= end]


def _captures(cursor: QueryCursor, root: Node, kinds: tuple[str, ...]) -> dict[str, list[Node]]:
    found = cursor.captures(root)
    return {k: sorted(found.get(k, ()), key=lambda n: n.start_byte) for k in kinds}


def calls_named(
    tree: Tree, src: bytes, names: Iterable[str], start: int = 0, end: int | None = None
) -> list[Node]:
    """The call expressions inside bytes [start, end) whose `call_name` is one of `names`, in
    the order of `calls_in` (source order, an outer call before the inner one it starts with).

    A byte search per name, then one descent per occurrence: every name node's text sits at
    its byte range, so no call is missed, and a handful of names costs far less than visiting
    every call of the file."""
    root = tree.root_node
    stop = len(src) if end is None else end
    found: dict[int, Node] = {}
    for name in names:
        needle = name.encode()
        at = src.find(needle, start, stop)
        while at >= 0:
            after = at + len(needle)
            inside_word = (at > 0 and src[at - 1] in _WORD_BYTES) or (
                after < len(src) and src[after] in _WORD_BYTES
            )  # `new` of `renew` or `new_tensor`: no node to descend to
            node = None if inside_word else root.descendant_for_byte_range(at, after)
            if node is not None and (node.start_byte, node.end_byte) == (at, after):
                call = _call_named_by(node)
                if call is not None and start <= call.start_byte and call.end_byte <= stop:
                    found[call.id] = call
            at = src.find(needle, after, stop)
    return sorted(found.values(), key=lambda n: (n.start_byte, -n.end_byte))


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
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
    root = tree.root_node
    found: dict[int, Node] = {}
    for word in words:
        needle = word.encode()
        at = src.find(needle, start, end)
        while at >= 0:
            stop = at + len(needle)
            node = root.descendant_for_byte_range(at, stop)
            exact = node is not None and (node.start_byte, node.end_byte) == (at, stop)
            if exact and node is not None and node.type in kinds:
                found[at] = node
            at = src.find(needle, at + 1, end)
    return [found[k] for k in sorted(found)]


def comments_mentioning(tree: Tree, src: bytes, word: bytes) -> list[Node]:
    """Line and block comments whose text contains `word`, in source order (found by a byte
    search, as `word_nodes`: no walk over the whole tree)."""
    root = tree.root_node
    found: dict[int, Node] = {}
    at = src.find(word)
    while at >= 0:
        node = root.descendant_for_byte_range(at, at + len(word))
        for _ in range(3):  # a doc comment's text is a child of the comment node
            if node is None or node.type in _COMMENT_KINDS:
                break
            node = node.parent if node.type in _COMMENT_PARTS else None
        if node is not None and node.type in _COMMENT_KINDS:
            found[node.start_byte] = node
        at = src.find(word, at + 1)
    return [found[k] for k in sorted(found)]


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
    args = child_by_field(call, "arguments")
    items = [a for a in (args.named_children if args else []) if a.type not in _COMMENT_KINDS]
    return child_by_field(call, "function"), items


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
    callee, args = call_parts(node)
    if callee is not None and callee.type == "generic_function":
        callee = child_by_field(callee, "function")
    if callee is None or callee.type != "field_expression":
        return None
    receiver, name = child_by_field(callee, "value"), child_by_field(callee, "field")
    if receiver is None or name is None or name.type != "field_identifier":
        return None
    return receiver, name, args


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

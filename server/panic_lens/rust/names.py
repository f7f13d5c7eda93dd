"""Name resolution: `use` declarations, local items and in-file modules -> canonical burn paths.

Scope-aware: `use` and items inside blocks and `mod` blocks count only there, a local item of
the same name shadows burn's, and a name from another crate resolves to None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from panic_lens.rust import burn_api
from panic_lens.rust.search import Descents, TooDeep
from panic_lens.rust.syntax import (
    LostNode,
    Node,
    NodeSpan,
    Tree,
    child_by_field,
    index,
    node_at,
    node_span,
    node_text,
    nodes_of_kinds,
    path_segments,
)

ITEM_KINDS = frozenset(
    {
        "function_item",
        "struct_item",
        "enum_item",
        "union_item",
        "trait_item",
        "type_item",
        "mod_item",
        "const_item",
        "static_item",
        "function_signature_item",
    }
)
_MAX_HOPS = 16  # `use` chains longer than this are treated as unknown (and cycles end)


@dataclass(slots=True)
class ScopeNames:
    """The names one scope (file, `mod` body or block) declares."""

    node: Node
    is_module: bool
    uses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    globs: list[tuple[str, ...]] = field(default_factory=list)
    items: dict[str, Node] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _PendingScope:
    """A ScopeNames of an edited text, its nodes known by byte range only (None: the file)."""

    span: NodeSpan | None
    is_module: bool
    uses: dict[str, tuple[str, ...]]
    globs: list[tuple[str, ...]]
    names: tuple[str, ...]
    item_spans: list[NodeSpan]


class Imports:
    """All scopes of one file with their `use` bindings and items; answers `resolve`."""

    def __init__(
        self,
        src: bytes,
        scopes: dict[int, ScopeNames],
        root: Node,
        module_path: tuple[str, ...] | None = None,
        loader: ModuleLoader | None = None,
    ) -> None:
        self.src = src
        self._scope_map = scopes
        # after an edit: the scopes by byte range, looked up in the tree when first read
        self._unsettled: list[_PendingScope] | None = None
        self.lost = False  # an unsettled node was not in the tree: these names are wrong
        self._root = root
        # Where this file sits in its crate (`()`: the crate root; None: unknown), and how to
        # read a sibling module file: `crate::`, `super::` and `mod x;` can leave the file.
        self.module_path = module_path
        self._loader = loader
        self._visiting: set[tuple[int, str]] = set()  # (module body, name) looked up by glob
        # (scope id, glob) -> the glob's module: each glob path is resolved once, and a glob
        # whose own path leads back to it ends there instead of fanning out through every glob
        self._glob_modules: dict[tuple[int, tuple[str, ...]], str | None] = {}
        self._spans_of: tuple[dict[int, ScopeNames], list[_Span]] | None = None
        # `_scope_chain`'s answers by (node id, inclusive), for the spans they were read from
        self._chains: tuple[list[_Span], dict[tuple[int, bool], list[ScopeNames]]] | None = None

    @classmethod
    def from_tree(
        cls,
        tree: Tree,
        src: bytes,
        nodes: dict[str, list[Node]] | None = None,
        *,
        module_path: tuple[str, ...] | None = None,
        loader: ModuleLoader | None = None,
    ) -> Imports:
        """Collect every scope's names; `nodes` is `syntax.index(tree)` when already computed."""
        root = tree.root_node
        nodes = nodes if nodes is not None else index(tree)
        scopes: dict[int, ScopeNames] = {root.id: ScopeNames(root, True)}
        containers = _containers(root, (*nodes["use"], *nodes["item"]))
        mod_bodies = {
            body.id
            for item in nodes["item"]
            if item.type == "mod_item" and (body := child_by_field(item, "body")) is not None
        }
        for node in nodes["use"]:
            scope = _scope_for(node, scopes, containers, mod_bodies)
            if scope is not None and node.type == "extern_crate_declaration":
                _add_extern_crate(scope, node, src)
            elif scope is not None:
                _add_use(scope, child_by_field(node, "argument"), (), src)
        for node in nodes["item"]:
            body = child_by_field(node, "body") if node.type == "mod_item" else None
            if body is not None and body.id not in scopes:  # every `mod` body closes names
                scopes[body.id] = ScopeNames(body, True)
            scope = _scope_for(node, scopes, containers, mod_bodies)
            name = child_by_field(node, "name")
            if scope is not None and name is not None:
                scope.items.setdefault(node_text(name, src), node)
        return cls(src, scopes, root, module_path, loader)

    @classmethod
    def module_level(
        cls,
        tree: Tree,
        src: bytes,
        *,
        module_path: tuple[str, ...] | None = None,
        loader: ModuleLoader | None = None,
    ) -> Imports:
        """The names of another module file of the crate, as its modules declare them.

        Other files only ever see a file's module scopes (the file and its `mod` bodies), never
        the blocks inside its functions, so only those are read: no walk over the whole tree.
        """
        nodes: dict[str, list[Node]] = {"use": [], "item": []}
        stack = [tree.root_node]
        while stack:
            for child in stack.pop().named_children:
                if child.type in _USE_KINDS:
                    nodes["use"].append(child)
                elif child.type in ITEM_KINDS:
                    nodes["item"].append(child)
                    body = child_by_field(child, "body") if child.type == "mod_item" else None
                    if body is not None:
                        stack.append(body)
        for found in nodes.values():
            found.sort(key=lambda n: n.start_byte)
        return cls.from_tree(tree, src, nodes, module_path=module_path, loader=loader)

    def renamed(self) -> frozenset[str]:
        """The names this file's `use`s bind to a path ending in another name (`as`), as
        parsed (error recovery included)."""
        return frozenset(name for scope in self._scopes.values()
                         for name, path in scope.uses.items() if path[-1:] != (name,))  # fmt: skip

    @property
    def reads_other_files(self) -> bool:
        """Whether `crate::`, `super::` or `mod x;` can make a name resolve in another file."""
        return self._loader is not None

    def relocated(
        self, src: bytes, root: Node, move_spans: Callable[[list[NodeSpan]], list[NodeSpan]]
    ) -> Imports:
        """These names in an edited text whose scopes and items are all still there:
        `move_spans` maps old byte ranges to the new ones (and raises when it cannot). Only the
        ranges move; the nodes are looked up in the new tree when a name is first resolved (a
        keystroke seldom resolves one)."""
        pending = self._unsettled if self._unsettled is not None else self._pending()
        flat = [scope.span for scope in pending if scope.span is not None]
        for scope in pending:
            flat += scope.item_spans
        moved = iter(move_spans(flat))
        scopes = [
            _PendingScope(next(moved) if scope.span is not None else None, scope.is_module,
                          scope.uses, scope.globs, scope.names, [])
            for scope in pending
        ]  # fmt: skip
        for scope, old in zip(scopes, pending, strict=True):
            scope.item_spans.extend(next(moved) for _ in old.item_spans)
        found = Imports(src, {}, root, self.module_path, self._loader)
        found._unsettled = scopes
        return found

    def _pending(self) -> list[_PendingScope]:
        root = self._root.id
        return [
            _PendingScope(
                None if scope.node.id == root else node_span(scope.node), scope.is_module,
                scope.uses, scope.globs, tuple(scope.items),
                [node_span(item) for item in scope.items.values()],
            )
            for scope in self._scope_map.values()
        ]  # fmt: skip

    @property
    def _scopes(self) -> dict[int, ScopeNames]:
        if self._unsettled is not None:
            self._settle()
        return self._scope_map

    def _settle(self) -> None:
        pending, self._unsettled = self._unsettled, None
        root = self._root
        scopes: dict[int, ScopeNames] = {}
        for scope in pending or ():
            node = root if scope.span is None else self._node_at(scope.span)
            items = {name: self._node_at(span)
                     for name, span in zip(scope.names, scope.item_spans, strict=True)}  # fmt: skip
            scopes[node.id] = ScopeNames(node, scope.is_module, dict(scope.uses),
                                         list(scope.globs), items)  # fmt: skip
        self._scope_map = scopes

    def _node_at(self, span: NodeSpan) -> Node:
        found = node_at(self._root, *span)
        if found is None:
            self.lost = True
            raise LostNode(span)
        return found

    # -- public API ---------------------------------------------------------------------

    def resolve(self, path: Node | str, at: Node | None = None) -> str | None:
        """Canonical burn path of `path` as seen at `at` (the path node itself by default)."""
        if isinstance(path, str):
            segments: list[str] | None = path.split("::")
            at = at if at is not None else self._root
        else:
            segments = path_segments(path, self.src)
            at = at if at is not None else path
        if not segments:
            return None
        # A text path is seen from inside `at` (which may be a block or the file itself).
        return self._resolve(tuple(segments), at, 0, inclusive=isinstance(path, str))

    def local_item(self, name: str, at: Node) -> Node | None:
        """The file's own item called `name` visible at `at` (struct, fn, type alias...)."""
        for scope in self._scope_chain(at):
            if name in scope.items:
                return scope.items[name]
            if name in scope.uses:
                return None
        return None

    # -- the crate's own items, for the evaluator (`evaluate.scope`) ----------------------

    @property
    def root(self) -> Node:
        """The file's root node."""
        return self._root

    def scope_chain(self, at: Node, inclusive: bool = False) -> list[ScopeNames]:
        """The scopes that see `at`, innermost first, out to its module."""
        return self._scope_chain(at, inclusive)

    def relative_module(self, keyword: str, at: Node, inclusive: bool) -> ModuleRef | None:
        """The module `crate`, `self` or `super` names at `at`."""
        return self._relative_module(keyword, at, inclusive)

    def module_scope(self, module: ModuleRef) -> ScopeNames | None:
        """The names a module (as `relative_module` or `mod_module` give it) declares."""
        owner, body = module
        return owner._scopes.get(body.id)

    def mod_module(self, item: Node) -> ModuleRef | None:
        """The module a `mod` item of this file declares."""
        return self._mod_item_module(item)

    # -- resolution ------------------------------------------------------------------------

    def _resolve(
        self, segs: tuple[str, ...], at: Node, hops: int, inclusive: bool = True
    ) -> str | None:
        """Resolve `segs` as written at `at` (`inclusive`: `at` may itself be a scope)."""
        if hops > _MAX_HOPS or not segs:  # no segments: a glob of nothing (`use ::*;`)
            return None
        first, rest = segs[0], segs[1:]
        if first == "":
            return burn_api.canonical(rest)
        if first in ("crate", "self", "super"):
            module = self._relative_module(first, at, inclusive)
            return _in_module(module, rest, hops)
        for scope in self._scope_chain(at, inclusive):
            found = self._lookup(scope, first, rest, hops)
            if found is not _MISSING:
                return found  # type: ignore[return-value]
        return burn_api.canonical(segs)

    def _lookup(self, scope: ScopeNames, first: str, rest: tuple[str, ...], hops: int) -> object:
        """Resolve `first::rest` through one scope; _MISSING when the scope lacks `first`."""
        if hops > _MAX_HOPS:
            return None
        if first in scope.uses and scope.uses[first] != (first,):  # `use burn;` is the crate
            target = scope.uses[first] + rest
            return self._resolve(target, scope.node, hops + 1)
        item = scope.items.get(first)
        if item is not None:
            if item.type == "mod_item" and rest:
                return _in_module(self._mod_item_module(item), rest, hops)
            return None  # the file's own item, not burn's
        for glob in scope.globs:
            found = self._through_glob(scope, glob, first, rest, hops)
            if found is not _MISSING:
                return found
        return _MISSING

    def _through_glob(
        self, scope: ScopeNames, glob: tuple[str, ...], first: str, rest: tuple[str, ...], hops: int
    ) -> object:
        if glob and glob[0] in ("crate", "self", "super"):
            module = self._relative_module(glob[0], scope.node, True)
            for seg in glob[1:]:
                module = _child_module(module, seg)
            if module is None or (module[0] is self and module[1].id == scope.node.id):
                return _MISSING
            owner, body = module
            visit = (body.id, first)
            if visit in owner._visiting:  # `a` globs `b` which globs `a`: nothing new there
                return _MISSING
            owner._visiting.add(visit)
            try:
                return owner._lookup(owner._scopes[body.id], first, rest, hops + 1)
            finally:
                owner._visiting.discard(visit)
        key = (scope.node.id, glob)
        if key not in self._glob_modules:
            self._glob_modules[key] = None  # while in progress: a cycle resolves to nothing
            self._glob_modules[key] = self._resolve(glob, scope.node, hops + 1)
        module_path = self._glob_modules[key]
        target = burn_api.glob_exports(module_path or "").get(first)
        if target is None:
            return _MISSING
        return burn_api.canonical(tuple(target.split("::")) + rest)

    def _mod_item_module(self, item: Node) -> ModuleRef | None:
        """The module a `mod` item declares: its body here, or its own file for `mod x;`."""
        body = child_by_field(item, "body")
        if body is not None:
            return self, body
        name = child_by_field(item, "name")
        if name is None or self.module_path is None:
            return None
        enclosing_mods = [
            node_text(n, self.src)
            for s in reversed(self._scopes_around(item, False))
            if s.node.type == "declaration_list" and (n := _mod_name(s.node)) is not None
        ]
        return self._file_module((*self.module_path, *enclosing_mods, node_text(name, self.src)))

    def _file_module(self, path: tuple[str, ...]) -> ModuleRef | None:
        loaded = self._loader(path) if self._loader is not None else None
        return (loaded, loaded._root) if loaded is not None else None

    def _relative_module(self, keyword: str, at: Node, inclusive: bool) -> ModuleRef | None:
        modules = [s.node for s in self._scopes_around(at, inclusive) if s.is_module]
        if keyword == "crate":
            if self.module_path:  # a module file: the crate root is another file
                return self._file_module(())
            return self, self._root  # the crate root, or (no crate known) our best guess
        if keyword == "self":
            return (self, modules[0]) if modules else None
        if len(modules) > 1:
            return self, modules[1]
        return self._file_module(self.module_path[:-1]) if self.module_path else None

    def _scope_chain(self, at: Node, inclusive: bool = False) -> list[ScopeNames]:
        """Scopes from the innermost around `at` out to its module: a `mod` sees no outer names.
        Once per node (most names are resolved again and again: every rule, every frame)."""
        spans = self._spans()
        if self._chains is None or self._chains[0] is not spans:
            self._chains = (spans, {})
        key = (at.id, inclusive)
        chain = self._chains[1].get(key)
        if chain is None:
            chain = []
            for scope in self._scopes_around(at, inclusive):
                chain.append(scope)
                if scope.is_module:
                    break
            self._chains[1][key] = chain
        return chain

    def _scopes_around(self, at: Node, inclusive: bool) -> list[ScopeNames]:
        """Every scope containing `at`, innermost first, found by byte range (no parent climbing:
        that is quadratic in tree-sitter for deep expressions)."""
        start, end, at_id = at.start_byte, at.end_byte, at.id
        return [
            scope
            for low, high, node_id, scope in self._spans()
            if low <= start and end <= high and (inclusive or node_id != at_id)
        ]

    def _spans(self) -> list[_Span]:
        """(start, end, node id, scope) of every scope, smallest first (ties in the scopes'
        order), read once per scope map: `_scopes_around` is asked for most names."""
        scopes = self._scopes
        if self._spans_of is None or self._spans_of[0] is not scopes:
            spans = [(s.node.start_byte, s.node.end_byte, s.node.id, s) for s in scopes.values()]
            spans.sort(key=lambda span: span[1] - span[0])
            self._spans_of = (scopes, spans)
        return self._spans_of[1]


_MISSING = object()
_Span = tuple[int, int, int, "ScopeNames"]  # a scope's start and end bytes, node id, names
ModuleRef = tuple["Imports", Node]  # a module: the file's Imports and the module's body node
ModuleLoader = Callable[[tuple[str, ...]], "Imports | None"]


def _in_module(module: ModuleRef | None, segs: tuple[str, ...], hops: int) -> str | None:
    """Resolve `segs` inside a module body (no outer scopes: modules are closed)."""
    if module is None or not segs:
        return None
    owner, body = module
    scope = owner._scopes.get(body.id)
    found = owner._lookup(scope, segs[0], segs[1:], hops + 1) if scope is not None else _MISSING
    return None if found is _MISSING else found  # type: ignore[return-value]


def _child_module(module: ModuleRef | None, name: str) -> ModuleRef | None:
    if module is None:
        return None
    owner, body = module
    scope = owner._scopes.get(body.id)
    item = scope.items.get(name) if scope is not None else None
    return owner._mod_item_module(item) if item is not None and item.type == "mod_item" else None


def _mod_name(body: Node) -> Node | None:
    owner = body.parent
    return child_by_field(owner, "name") if owner is not None and owner.type == "mod_item" else None


def _scope_for(
    node: Node, scopes: dict[int, ScopeNames], containers: dict[int, Node], mod_bodies: set[int]
) -> ScopeNames | None:
    """The scope that declares `node`: a block, a `mod` body or the file; None inside impls."""
    parent = containers.get(node.id)
    if parent is None:
        return None  # not directly in a block, a declaration list or the file
    if parent.type == "declaration_list" and parent.id not in mod_bodies:
        return None  # impl / trait / extern bodies declare associated items, not names
    scope = scopes.get(parent.id)
    if scope is None:
        scope = scopes[parent.id] = ScopeNames(parent, parent.type != "block")
    return scope


def _containers(root: Node, declared: Iterable[Node]) -> dict[int, Node]:
    """`use` or item id -> its block, declaration list or file (absent: declared elsewhere).

    Each declaration's parent, asked in C: a few hundred lookups cost far less than a query
    for every block of the file (which walks the whole tree). Asking costs the node's depth,
    so on a pathologically deep tree the blocks are walked instead (`search.Descents`).
    """
    declared = list(declared)
    out: dict[int, Node] = {}
    descents = Descents()
    try:
        for node in declared:
            descents.tick()
            parent = node.parent
            if parent is not None and (parent.type in _CONTAINER_KINDS or parent.id == root.id):
                out[node.id] = parent  # the root too, also when recovery made it an ERROR
    except TooDeep:
        wanted = {node.id for node in declared}
        out = {}
        for container in (root, *nodes_of_kinds(root, _CONTAINER_KINDS, 0, root.end_byte)):
            for child in container.named_children:
                if child.id in wanted:
                    out[child.id] = container
    return out


_CONTAINER_KINDS = frozenset({"block", "declaration_list"})
_USE_KINDS = frozenset({"use_declaration", "extern_crate_declaration"})


def use_bindings(
    declaration: Node, src: bytes
) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, ...]]]:
    """The names one `use` declaration binds (name -> path as written) and the paths it globs."""
    scope = ScopeNames(declaration, True)
    _add_use(scope, child_by_field(declaration, "argument"), (), src)
    return scope.uses, scope.globs


def _add_extern_crate(scope: ScopeNames, node: Node, src: bytes) -> None:
    """`extern crate burn_rl as rl;` binds `rl` to the crate root."""
    name, alias = child_by_field(node, "name"), child_by_field(node, "alias")
    if name is not None and alias is not None:
        scope.uses[node_text(alias, src)] = ("", node_text(name, src))


def _add_use(scope: ScopeNames, node: Node | None, prefix: tuple[str, ...], src: bytes) -> None:
    """Record the bindings of one use tree under `prefix`.

    Iterative (an explicit stack, children in source order): `use a::{b::{c::{...}}}` may nest
    deeper than Python's recursion limit.
    """
    stack: list[tuple[Node | None, tuple[str, ...]]] = [(node, prefix)]
    while stack:
        node, prefix = stack.pop()
        if node is None:
            continue
        kind = node.type
        if kind == "use_as_clause":
            path, alias = child_by_field(node, "path"), child_by_field(node, "alias")
            segs = path_segments(path, src) if path is not None else None
            if segs and alias is not None and node_text(alias, src) != "_":
                scope.uses[node_text(alias, src)] = prefix + tuple(segs)
        elif kind == "scoped_use_list":
            path = child_by_field(node, "path")
            segs = path_segments(path, src) if path is not None else []
            stack.append((child_by_field(node, "list"), prefix + tuple(segs or ())))
        elif kind == "use_list":
            stack.extend((child, prefix) for child in reversed(node.named_children))
        elif kind == "use_wildcard":
            path = node.named_children[0] if node.named_children else None
            segs = path_segments(path, src) if path is not None else []
            scope.globs.append(prefix + tuple(segs or ()))
        elif kind == "self" and prefix:
            scope.uses[prefix[-1]] = prefix
        else:
            segs = path_segments(node, src)
            if segs:
                scope.uses[segs[-1]] = prefix + tuple(segs)

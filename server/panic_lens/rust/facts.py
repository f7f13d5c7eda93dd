"""FileFacts: everything the rules read about one file, built once and cached lazily.

Source, tree, imports, crate context and settings, plus shortcuts for name resolution,
types and call sites (`rust.calls`); values and shapes are `evaluate`'s.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panic_lens.model import ALLOW_WORD, Point, Settings, Span
from panic_lens.rust import bindings, modules
from panic_lens.rust.calls import CallSite, self_contained_renames
from panic_lens.rust.crate import CrateContext, crate_context
from panic_lens.rust.locals import LocalBinding
from panic_lens.rust.names import Imports, ModuleLoader
from panic_lens.rust.search import calls_named, comments_mentioning, declarations, word_nodes
from panic_lens.rust.syntax import (
    LostNode,
    Node,
    NodeSpan,
    Tree,
    call_name,
    call_parts,
    calls_in,
    child_by_field,
    method_call,
    node_at,
    node_span,
    node_text,
    parse_code,
    span_of,
    starts_between,
)

if TYPE_CHECKING:
    from panic_lens.rust.memo import CrateMemo

__all__ = ["CallSite", "FileFacts", "LostNode", "NodeSpan", "TrainingSignal"]

# Method calls and burn types that mean "this code runs a backward pass".
_TRAINING_METHODS = frozenset({"backward", "require_grad", "set_require_grad", "autodiff"})
_TRAINING_TYPES = frozenset(
    {"burn::backend::Autodiff", "burn::module::AutodiffModule", "burn::train::TrainStep",
     "burn::train::Learner", "burn::train::LearnerBuilder", "burn::train::SupervisedTraining"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TrainingSignal:
    """Evidence that the file's code trains (span None: from the crate's features; `path`
    set: the span is in that file, another crate's manifest)."""

    what: str
    span: Span | None
    path: str | None = None


@dataclass(slots=True, weakref_slot=True)
class FileFacts:
    """One file's parsed source and what the analysis layer knows about it."""

    src: bytes
    tree: Tree
    path: str | None
    imports: Imports
    crate: CrateContext
    settings: Settings
    nodes_index: dict[str, list[Node]] = field(default_factory=dict, repr=False)
    # kinds of `nodes_index` known after an edit by byte range and type only, in source
    # order: looked up in the tree when first read (`nodes`), most edits never read them
    _pending: dict[str, list[NodeSpan]] = field(default_factory=dict, repr=False)
    # a pending node was not in the tree: these facts are wrong and must not be used (`lost`)
    _lost: bool = field(default=False, repr=False)
    _calls: list[tuple[str | None, Node]] | None = field(default=None, repr=False)
    _sites: dict[int, CallSite | None] = field(default_factory=dict, repr=False)
    _signals: tuple[TrainingSignal, ...] | None = field(default=None, repr=False)
    _allow_comments: list[Node] | None = field(default=None, repr=False)
    _only_calls: tuple[tuple[int, int], list[tuple[str | None, Node]]] | None = field(
        default=None, repr=False
    )
    # (start, end) and the call nodes inside, when already found (the re-analysis's one walk)
    range_calls: tuple[tuple[int, int], list[Node]] | None = field(default=None, repr=False)
    # (start, end) bytes: calls() yields only the calls inside (per-function re-analysis)
    only: tuple[int, int] | None = field(default=None, repr=False)
    # names `use .. as` may bind where this file's names resolve (CrateMemo); None: unknown,
    # every call is resolved
    renames: frozenset[str] | None = field(default=None, repr=False)
    # whether the text writes `crate` or `super` (None: not looked for yet)
    _crate_words: bool | None = field(default=None, repr=False)
    # the caller reads findings only (`check`), never hovers: a rule may then stop at a call
    # as soon as it knows there is no finding, before working out what a hover would show
    findings_only: bool = field(default=False, repr=False)
    # the only rules that can find anything in this text (a `check` prefilter's verdict,
    # `engine.analyze(may_fire=..)`); None: any rule may
    may_fire: frozenset[str] | None = field(default=None, repr=False)
    # a `check` run's crate lookups (`build(memo=..)`), which later questions read too
    crate_memo: CrateMemo | None = field(default=None, repr=False)
    # what the layers above computed about this text, by their own keys (e.g. the config a
    # receiver builds, asked by every rule over the same call); new facts start empty
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    # calls found by name (`calls` with the renames known), by (`only`, name set)
    _by_name: dict[tuple[tuple[int, int] | None, frozenset[str]], list[Node]] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def build(
        cls,
        src: bytes,
        path: str | None = None,
        *,
        settings: Settings | None = None,
        crate: CrateContext | None = None,
        tree: Tree | None = None,
        memo: CrateMemo | None = None,
    ) -> FileFacts:
        """`memo` (a `check` run's) memoises crate lookups and spares resolving calls that
        cannot be a rule's; the facts are the same."""
        if crate is None:
            crate = memo.crate_context(path) if memo is not None and path else crate_context(path)
        where = _crate_module(path, crate, memo)
        loader = _loader(crate) if where is not None else None
        renames = None
        if memo is not None:
            src_root = crate.manifest.parent / "src" if loader and crate.manifest else None
            renames = memo.renames.for_file(src, src_root)
        if tree is None:  # a module file another analysis of the run loaded: parsed already
            tree = (modules.parsed(path, src) if path else None) or parse_code(src)
            if path and loader is not None:
                modules.remember(path, src, tree)  # for the loader, when a sibling loads it
        # declarations by keyword, calls by name (all of them, by a query, only when asked
        # for): no walk over the whole tree
        nodes = declarations(tree, src)
        imports = Imports.from_tree(tree, src, nodes, module_path=where, loader=loader)
        facts = cls(src, tree, path, imports, crate, settings or Settings(), nodes)
        facts.crate_memo = memo
        if renames is not None:
            facts.renames = renames
        else:
            facts.renames = self_contained_renames(src, loader is not None, nodes["item"])
        if facts.renames is not None:  # the byte scan's, and exactly what the parse binds
            facts.renames |= imports.renamed()
        return facts

    def relocated(
        self, src: bytes, tree: Tree, move_spans: Callable[[list[NodeSpan]], list[NodeSpan]],
        signals: tuple[TrainingSignal, ...], edit: tuple[int, int, int] | None = None,
    ) -> FileFacts:  # fmt: skip
        """These facts for an edit that changed no declaration, impl or training signal:
        `move_spans` maps old byte ranges to the new ones (raising when it cannot), `signals`
        are the old ones at their new places, `edit` the (start, old end, new end) bytes of the
        edit when known. The declarations and the names' scopes are found in `tree` only when
        read; calls and comments are found afresh, lazily."""
        pending = {}
        for kind in ("use", "item", "impl"):
            spans = self._pending.get(kind)
            if spans is None:
                spans = [node_span(n) for n in self.nodes_index.get(kind, ())]
            pending[kind] = move_spans(spans)
        imports = self.imports.relocated(src, tree.root_node, move_spans)
        facts = FileFacts(src, tree, self.path, imports, self.crate, self.settings)
        facts._pending = pending
        facts._signals = signals
        # No `use` or item changed (the caller checked): the renames stand while the text
        # still reaches no other file (`crate::` or `super::` may have been typed)
        if self.renames is not None and not (
            imports.reads_other_files and facts._writes_crate_or_super(self, edit)
        ):
            facts.renames = self.renames
        return facts

    def _writes_crate_or_super(self, old: FileFacts, edit: tuple[int, int, int] | None) -> bool:
        """Whether this text has `crate` or `super` anywhere, from what `old` (the text before
        `edit`) had: without either there, only the edited bytes can have brought one."""
        if old._crate_words is False and edit is not None:
            start, _, new_end = edit
            near = self.src[max(0, start - 4) : new_end + 4]
            self._crate_words = b"crate" in near or b"super" in near
        else:
            self._crate_words = b"crate" in self.src or b"super" in self.src
        return self._crate_words

    def training_signals_in(self, start: int, end: int) -> tuple[TrainingSignal, ...]:
        """The training signals found in bytes [start, end) (the features excluded)."""
        found = []
        for node in _signal_candidates(self.tree, self.src, start, end):
            what = self._signal(node)
            if what is not None:
                found.append(TrainingSignal(what, span_of(node)))
        return tuple(found)

    def nodes(self, kind: str) -> list[Node]:
        """Indexed nodes in source order: "call", "use", "item" or "impl"."""
        if kind in self._pending:
            self.nodes_index[kind] = [self._node_at(span) for span in self._pending[kind]]
            del self._pending[kind]
        if kind == "call" and "call" not in self.nodes_index:  # a re-analysis built without
            self.nodes_index["call"] = calls_in(self.tree, 0, len(self.src))
        return self.nodes_index.get(kind, [])

    def nodes_in(self, kind: str, lo: int, hi: int) -> list[Node]:
        """The "use", "item" or "impl" nodes that start in bytes [lo, hi), in source order;
        pending ones elsewhere in the file stay pending."""
        spans = self._pending.get(kind)
        if spans is not None:
            first, stop = bisect_left(spans, (lo,)), bisect_left(spans, (hi,))
            if stop - first < len(spans):  # a part: looked up alone, the rest stays pending
                return [self._node_at(span) for span in spans[first:stop]]
        nodes = self.nodes(kind)  # all of them: found once and kept
        return nodes[bisect_left(nodes, lo, key=lambda n: n.start_byte) :
                     bisect_left(nodes, hi, key=lambda n: n.start_byte)]  # fmt: skip

    def starts_in(self, kind: str, lo: int, hi: int) -> bool:
        """Whether a "use", "item" or "impl" node starts in bytes [lo, hi) (without looking
        pending ones up in the tree)."""
        spans = self._pending.get(kind)
        if spans is not None:
            at = bisect_left(spans, (lo,))
            return at < len(spans) and spans[at][0] < hi
        return starts_between(self.nodes_index.get(kind, []), lo, hi)

    @property
    def lost(self) -> bool:
        """A moved declaration or name scope read since an edit was not in the new tree:
        these facts are wrong and must not be used."""
        return self._lost or self.imports.lost

    def _node_at(self, span: NodeSpan) -> Node:
        found = node_at(self.tree.root_node, *span)
        if found is None:
            self._lost = True
            raise LostNode(span)
        return found

    def allow_comments(self) -> list[Node]:
        """The comments that mention panic-lens (suppressions), in source order."""
        if self._allow_comments is None:
            self._allow_comments = comments_mentioning(self.tree, self.src, ALLOW_WORD)
        return self._allow_comments

    # -- small helpers -------------------------------------------------------------------

    def text(self, node: Node) -> str:
        return node_text(node, self.src)

    def span(self, node: Node) -> Span:
        return span_of(node)

    def resolve(self, path: Node | str, at: Node | None = None) -> str | None:
        return self.imports.resolve(path, at)

    def type_of(self, expr: Node | None) -> bindings.TypeFact | None:
        """`bindings.type_of`, once per node (most rules and the evaluator ask the same)."""
        if expr is None:
            return None
        key = ("type_of", expr.id)
        if key not in self.memo:
            self.memo[key] = bindings.type_of(expr, self)
        found: bindings.TypeFact | None = self.memo[key]
        return found

    def binding(self, ident: Node) -> LocalBinding | None:
        return bindings.binding_of(ident, self)

    def value_origin(self, ident: Node) -> Node | None:
        return bindings.value_origin(ident, self)

    def builder_chain(self, expr: Node | None) -> bindings.BuilderChain | None:
        return bindings.builder_chain(expr, self)

    # -- calls and signals -----------------------------------------------------------------

    def calls(
        self, names: frozenset[str] | None = None, *, renamed: bool = False
    ) -> Iterator[CallSite]:
        """The file's call expressions (with `only`, those inside it) in source order. With
        `names`, only the calls written with one of them; `renamed`: or with a name a `use ..
        as` may bind (every call while the renames are unknown). Most calls are nobody's: a
        rule that names its calls never builds a CallSite for the others."""
        wanted: frozenset[str] | None = names
        if names is not None and renamed:
            wanted = None if self.renames is None else names | self.renames
        if wanted is not None:  # search the names
            key = (self.only, wanted)
            if key not in self._by_name:
                start, end = self.only if self.only is not None else (0, len(self.src))
                self._by_name[key] = calls_named(self.tree, self.src, wanted, start, end)
            for node in self._by_name[key]:
                site = self.call_site(node)
                if site is not None:
                    yield site
            return
        for name, node in self._named_calls():
            if wanted is None or name in wanted:
                site = self.call_site(node)
                if site is not None:
                    yield site

    def _named_calls(self) -> list[tuple[str | None, Node]]:
        """(written name, call node) of every call `calls` may yield, found once."""
        if self.only is not None:  # one function re-analysed: only its calls, found there
            if self._only_calls is None or self._only_calls[0] != self.only:
                known = self.range_calls
                if known is None or known[0] != self.only:
                    known = (self.only, calls_in(self.tree, *self.only))
                self._only_calls = (self.only, self._with_names(known[1]))
            return self._only_calls[1]
        if self._calls is None:
            self._calls = self._with_names(self.nodes("call"))
        return self._calls

    def _with_names(self, nodes: list[Node]) -> list[tuple[str | None, Node]]:
        src = self.src
        out = []
        for node in nodes:
            name = call_name(node)
            out.append((node_text(name, src) if name is not None else None, node))
        return out

    def call_site(self, node: Node) -> CallSite | None:
        """The CallSite of a call_expression node (None for other nodes), anywhere in the file;
        one object per node, so what a rule resolved on it is resolved once."""
        if node.type != "call_expression":
            return None
        key = node.id
        if key not in self._sites:
            self._sites[key] = self._call_site(node)
        return self._sites[key]

    def training_signals(self) -> tuple[TrainingSignal, ...]:
        """Autodiff backends, `.backward()`, `.require_grad()`, TrainStep, Learner, features."""
        if self._signals is None:
            found = [TrainingSignal(f"burn feature `{f}`", None) for f in self._train_features()]
            for node in _signal_candidates(self.tree, self.src):
                what = self._signal(node)
                if what is not None:
                    found.append(TrainingSignal(what, span_of(node)))
            self._signals = tuple(found)
        return self._signals

    def workspace_signal(self) -> TrainingSignal | None:
        """The workspace member that trains this crate through a dependency on it, located in
        that member's Cargo.toml (`rust.workspace`); None when no member does."""
        by = self.crate.trained_by
        if by is None:
            return None
        span = Span(by.start_byte, by.end_byte, Point(by.row, by.col), Point(by.row, by.end_col))
        what = (
            f"burn feature `{by.feature}` in workspace crate `{by.crate}`, "
            "which depends on this crate"
        )
        # the manifest's path written the way the file's is (relative to the working folder
        # when the file's is), as reports show both
        relative = self.path is not None and not os.path.isabs(self.path)
        file = os.path.relpath(by.file) if relative else str(by.file)
        return TrainingSignal(f"{what}: {by.where}", span, file)

    def _train_features(self) -> list[str]:
        return sorted(self.crate.features & {"train", "autodiff"})

    def _signal(self, node: Node) -> str | None:
        kind = node.type
        if kind == "field_identifier" and self.text(node) in _TRAINING_METHODS:
            parent = node.parent
            if parent is not None and parent.type == "field_expression":
                return f"`.{self.text(node)}()`"
        if kind in ("type_identifier", "identifier") and self.text(node) in _TRAINING_NAMES:
            target = node.parent if node.parent and node.parent.type.startswith("scoped") else node
            if self.resolve(target) in _TRAINING_TYPES:
                return f"`{self.text(node)}`"
        return None

    def _call_site(self, node: Node) -> CallSite | None:
        parts = method_call(node)
        if parts is not None:
            receiver, name, args = parts
            return CallSite(self, node, "method", name, tuple(args), receiver=receiver)
        callee, args = call_parts(node)
        if callee is not None and callee.type == "generic_function":
            callee = child_by_field(callee, "function")
        if callee is None:
            return None
        if callee.type == "identifier":
            return CallSite(self, node, "path", callee, tuple(args), callee=callee)
        if callee.type != "scoped_identifier":
            return None
        name_node, owner = child_by_field(callee, "name"), child_by_field(callee, "path")
        if name_node is None:
            return None
        kind = "qualified" if owner is not None and owner.type == "bracketed_type" else "path"
        return CallSite(self, node, kind, name_node, tuple(args), owner=owner, callee=callee)


_TRAINING_NAMES = frozenset(p.rsplit("::", 1)[-1] for p in _TRAINING_TYPES)


def _signal_candidates(
    tree: Tree, src: bytes, start: int = 0, end: int | None = None
) -> list[Node]:
    """The nodes `_signal` may accept (identifiers spelled like a signal), in source order."""
    fields = frozenset({"field_identifier"})
    methods = word_nodes(tree, src, sorted(_TRAINING_METHODS), fields, start, end)
    names = word_nodes(tree, src, sorted(_TRAINING_NAMES), _NAME_KINDS, start, end)
    return sorted([*methods, *names], key=lambda n: n.start_byte)


_NAME_KINDS = frozenset({"type_identifier", "identifier"})


def _crate_module(
    path: str | None, crate: CrateContext, memo: CrateMemo | None = None
) -> tuple[str, ...] | None:
    """The file's module path inside its crate's `src/` (None: not a module of that tree)."""
    if path is None or crate.manifest is None:
        return None
    if memo is not None:
        return memo.module_path(path, crate.manifest.parent / "src")
    return modules.module_path(Path(path), crate.manifest.parent / "src")


def _loader(crate: CrateContext) -> ModuleLoader | None:
    return modules.loader_for(crate.manifest.parent / "src") if crate.manifest else None

"""FileFacts: everything the rules read about one file, built once and cached lazily.

Source, tree, imports, crate context and settings, plus shortcuts for name resolution,
types, constants (from `rust.consts`, imported lazily) and call sites with resolved callees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from panic_lens.rules.base import Span
from panic_lens.rust import bindings, modules
from panic_lens.rust.crate import CrateContext, crate_context
from panic_lens.rust.locals import LocalBinding
from panic_lens.rust.names import Imports, ModuleLoader
from panic_lens.rust.syntax import (
    Node,
    Tree,
    call_parts,
    calls_in,
    child_by_field,
    comments_mentioning,
    index,
    method_call,
    node_text,
    parse,
    span_of,
    word_nodes,
)
from panic_lens.settings import Settings

# Method calls and burn types that mean "this code runs a backward pass".
_TRAINING_METHODS = frozenset({"backward", "require_grad", "set_require_grad", "autodiff"})
_TRAINING_TYPES = frozenset(
    {"burn::backend::Autodiff", "burn::module::AutodiffModule", "burn::train::TrainStep",
     "burn::train::Learner", "burn::train::LearnerBuilder", "burn::train::SupervisedTraining"}
)  # fmt: skip


class CallSite:
    """One call: `recv.name(args)` (kind "method"), `a::b::name(args)` ("path") or
    `<T as Trait>::name(args)` ("qualified").

    `path` is the canonical burn path of a path callee (None when not burn's or unknown);
    for a qualified call, `self_type` and `trait_path` are the resolved `T` and `Trait`.
    They are resolved on first use: most rules look at the name first.
    """

    def __init__(
        self,
        facts: FileFacts,
        node: Node,
        kind: str,
        name_node: Node,
        args: tuple[Node, ...],
        receiver: Node | None = None,
        owner: Node | None = None,
        callee: Node | None = None,
    ) -> None:
        self._facts = facts
        self.node = node
        self.kind = kind
        self.name_node = name_node
        self.name = facts.text(name_node)
        self.args = args
        self.receiver = receiver
        self.owner = owner  # the `a::b` of a path call, the `<T as Trait>` of a qualified one
        self._callee = callee

    def __repr__(self) -> str:
        return f"CallSite({self.kind} {self.name} at {self.node.start_point})"

    @cached_property
    def path(self) -> str | None:
        if self.kind != "path" or self._callee is None:
            return None
        return self._facts.resolve(self._callee)

    @cached_property
    def self_type(self) -> str | None:
        return bindings.type_of_type(self._qualified("type"), self._facts)

    @cached_property
    def trait_path(self) -> str | None:
        return bindings.type_of_type(self._qualified("alias"), self._facts)

    def _qualified(self, field_name: str) -> Node | None:
        if self.kind != "qualified" or self.owner is None or not self.owner.named_children:
            return None
        return child_by_field(self.owner.named_children[0], field_name)


@dataclass(frozen=True, slots=True)
class TrainingSignal:
    """Evidence that the file's code trains (span None: from the crate's features)."""

    what: str
    span: Span | None


@dataclass(slots=True)
class FileFacts:
    """One file's parsed source and what the analysis layer knows about it."""

    src: bytes
    tree: Tree
    path: str | None
    imports: Imports
    crate: CrateContext
    settings: Settings
    nodes_index: dict[str, list[Node]] = field(default_factory=dict, repr=False)
    _calls: list[CallSite] | None = field(default=None, repr=False)
    _sites: dict[int, CallSite | None] = field(default_factory=dict, repr=False)
    _signals: tuple[TrainingSignal, ...] | None = field(default=None, repr=False)
    _allow_comments: list[Node] | None = field(default=None, repr=False)
    _only_calls: tuple[tuple[int, int], list[CallSite]] | None = field(default=None, repr=False)
    # (start, end) and the call nodes inside, when already found (the re-analysis's one walk)
    range_calls: tuple[tuple[int, int], list[Node]] | None = field(default=None, repr=False)
    # (start, end) bytes: calls() yields only the calls inside (per-function re-analysis)
    only: tuple[int, int] | None = field(default=None, repr=False)

    @classmethod
    def build(
        cls,
        src: bytes,
        path: str | None = None,
        *,
        settings: Settings | None = None,
        crate: CrateContext | None = None,
        tree: Tree | None = None,
    ) -> FileFacts:
        tree = tree if tree is not None else parse(src)
        crate = crate if crate is not None else crate_context(path)
        nodes = index(tree)
        where = _crate_module(path, crate)
        imports = Imports.from_tree(
            tree,
            src,
            nodes,
            module_path=where,
            loader=_loader(crate) if where is not None else None,
        )
        return cls(src, tree, path, imports, crate, settings or Settings(), nodes)

    def relocated(
        self, src: bytes, tree: Tree, move: Callable[[Node], Node],
        signals: tuple[TrainingSignal, ...],
    ) -> FileFacts:  # fmt: skip
        """These facts for an edit that changed no declaration, impl or training signal:
        `move` maps an old node to the same node of `tree` (raising when it cannot), `signals`
        are the old ones at their new places. Calls and comments are found afresh, lazily."""
        kinds = ("use", "item", "impl")
        nodes = {k: [move(n) for n in self.nodes_index.get(k, ())] for k in kinds}
        imports = self.imports.relocated(src, tree.root_node, move)
        facts = FileFacts(src, tree, self.path, imports, self.crate, self.settings, nodes)
        facts._signals = signals
        return facts

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
        if kind == "call" and "call" not in self.nodes_index:  # a re-analysis built without
            self.nodes_index["call"] = calls_in(self.tree, 0, len(self.src))
        return self.nodes_index.get(kind, [])

    def allow_comments(self) -> list[Node]:
        """The comments that mention panic-lens (suppressions), in source order."""
        if self._allow_comments is None:
            self._allow_comments = comments_mentioning(self.tree, self.src, b"panic-lens")
        return self._allow_comments

    # -- small helpers -------------------------------------------------------------------

    def text(self, node: Node) -> str:
        return node_text(node, self.src)

    def span(self, node: Node) -> Span:
        return span_of(node)

    def resolve(self, path: Node | str, at: Node | None = None) -> str | None:
        return self.imports.resolve(path, at)

    def type_of(self, expr: Node | None) -> bindings.TypeFact | None:
        return bindings.type_of(expr, self)

    def binding(self, ident: Node) -> LocalBinding | None:
        return bindings.binding_of(ident, self)

    def value_origin(self, ident: Node) -> Node | None:
        return bindings.value_origin(ident, self)

    def builder_chain(self, expr: Node | None) -> bindings.BuilderChain | None:
        return bindings.builder_chain(expr, self)

    def int_value(self, node: Node) -> Any:
        """consts.eval_int (IntFact | None); None while the consts module is absent."""
        consts = _consts()
        return consts.eval_int(node, self) if consts is not None else None

    def shape_of(self, node: Node) -> Any:
        """consts.shape_of (ShapeFact | None); None while the consts module is absent."""
        consts = _consts()
        return consts.shape_of(node, self) if consts is not None else None

    # -- calls and signals -----------------------------------------------------------------

    def calls(self) -> Iterator[CallSite]:
        """Every call expression of the file, in source order, with its callee resolved."""
        if self.only is not None:  # one function re-analysed: only its calls, found there
            if self._only_calls is None or self._only_calls[0] != self.only:
                known = self.range_calls
                if known is None or known[0] != self.only:
                    known = (self.only, calls_in(self.tree, *self.only))
                found = map(self.call_site, known[1])
                self._only_calls = (self.only, [s for s in found if s is not None])
            return iter(self._only_calls[1])
        if self._calls is None:
            sites = (self.call_site(node) for node in self.nodes("call"))
            self._calls = [site for site in sites if site is not None]
        return iter(self._calls)

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


def _crate_module(path: str | None, crate: CrateContext) -> tuple[str, ...] | None:
    """The file's module path inside its crate's `src/` (None: not a module of that tree)."""
    if path is None or crate.manifest is None:
        return None
    return modules.module_path(Path(path), crate.manifest.parent / "src")


def _loader(crate: CrateContext) -> ModuleLoader | None:
    return modules.loader_for(crate.manifest.parent / "src") if crate.manifest else None


def _consts() -> Any:
    """B's consts module, or None while it does not exist yet."""
    try:
        from panic_lens.rust import consts
    except ImportError:
        return None
    return consts

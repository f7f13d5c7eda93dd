"""What one evaluation carries: the file, the memo of answers, the budget that bounds the work,
and the values of a function's parameters when a call of it is being followed.

Bounds (every query answers in bounded time, whatever the code): an expression deeper than
`MAX_DEPTH` is unknown; one top-level question (`evaluate.value_of` and friends) takes at most
`MAX_STEPS` evaluation steps, after which everything left is unknown; answers are memoised per
file and call context, so a file's questions together cost about one walk of what they read.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from panic_lens.evaluate import scope
from panic_lens.evaluate.scope import Unit, register_unit, unit_of
from panic_lens.model import Span
from panic_lens.rust.locals import LocalBinding, find_binding
from panic_lens.rust.syntax import Node

MAX_DEPTH = 48  # nested expressions, let-to-let and const-to-const chains
MAX_STEPS = 20_000  # evaluation steps per top-level question


@dataclass(frozen=True, slots=True)
class Value:
    """A value known statically: what the rule language sees (`value`: an int, a float, a
    bool, a string or a variant's name, None, a list, a map), where it was set (`origin`, in
    `path` when another file), the expression that wrote it at the call (what a fix replaces;
    None for a default or a value from elsewhere), and how it was reached (`note`, one step a
    line in `steps`). A tensor's value also has its `shape` (`evaluate.shapes.Shape`)."""

    value: Any
    origin: Span | None
    written: Node | None = None
    note: str = ""
    path: str | None = None
    shape: Any = None
    steps: tuple[str, ...] = ()


class Fields(dict[str, Any]):
    """The value of a struct of the user's crate (a `#[derive(Config)]` config built by
    `X::new(..)`, its setters or a literal): a map of the fields whose values are known, which
    is what a rule reads; `owner` is the struct (its `scope.Item`), `sources` each field's `Value`
    (where it was set and how), so that `cfg.groups` reads the field with its origin and a
    method called on the value (`cfg.init(d)`) knows its `self`."""

    __slots__ = ("built", "owner", "sources")

    def __init__(
        self, owner: scope.Item, sources: dict[str, Value],
        built: dict[str, tuple[Node, Frame]] | None = None,
    ) -> None:  # fmt: skip
        super().__init__((name, v.value) for name, v in sources.items())
        self.owner = owner
        self.sources = sources
        # the fields a literal sets to an expression that is no value (a burn module built
        # from its config: `linear: LinearConfig::new(self.d, 10).init(d)`), with the frame it
        # was written in: the module's config is read there (`State.module_of`)
        self.built = built or {}

    def __repr__(self) -> str:  # a memo key: two structs with the same fields differ
        node = self.owner.node
        built = sorted((k, n.id, id(f)) for k, (n, f) in self.built.items())
        return f"{self.owner.unit.path}:{node.start_byte}:{dict.__repr__(self)}:{built}"


_EVALUATORS: dict[str, Any] = {}


def register(name: str, fn: Any) -> None:
    """Make `fn` the evaluator `State.value` (name "value") or `State.shape` ("shape") calls:
    the modules of the package call each other through these, not by import."""
    _EVALUATORS[name] = fn


class OutOfBudget(Exception):
    """The question took more steps than its budget: the answer is unknown."""


@dataclass(slots=True)
class Frame:
    """A function being evaluated at one call: its parameters' values by name (a param not in
    `args` is unknown), and the calls it was reached through (to cut recursion)."""

    fn: Node | None = None  # the function (or `for` loop) whose names `args` are
    args: dict[str, Any] = field(default_factory=dict)
    calls: tuple[int, ...] = ()
    label: str = ""
    parent: Frame | None = None  # an outer loop's frame, whose element is also known
    call: Node | None = None  # the call a caller's frame is of (`evaluate.callers`)


@dataclass(slots=True)
class State:
    """One file's evaluator: its Unit, the memo of answers by (node, frame), the step budget."""

    unit: Unit
    resolve: Any  # the analysed file's name resolver (`Imports.resolve`)
    memo: dict[Any, Any] = field(default_factory=dict)
    steps: int = 0
    asking: int = 0  # questions in progress (the budget is the outermost one's)
    others: dict[int, State] = field(default_factory=dict)  # other files' evaluators
    facts_ref: Any = None  # a weak reference to the analysed file's facts (no cycle)

    def facts(self) -> Any:
        """The analysed file's facts (for the layers above, `module_of`), or None."""
        return self.facts_ref() if self.facts_ref is not None else None

    def module_of(
        self, node: Node, frame: Frame | None = None
    ) -> tuple[str, dict[str, Any]] | None:
        """(type path, config fields) of the burn module `node` holds (in `frame`), as the
        layer that knows burn's configs registered (`register("module", ..)`); None when
        unknown."""
        fn = _EVALUATORS.get("module")
        facts = self.facts()
        if fn is None or facts is None or self.unit.src is not facts.src:
            return None
        return fn(node, facts, frame)

    def value(self, node: Node | None, frame: Frame, depth: int) -> Value | None:
        """`evaluate.values.value` of `node` in `frame`."""
        return _EVALUATORS["value"](node, self, frame, depth)

    def struct_value(
        self, node: Node, frame: Frame, depth: int, method: bool = False
    ) -> Value | None:
        """The value (a map of fields) of a struct `node` builds, as the layer that knows
        burn's option structs (`register("struct", ..)`) and the derive of the user's configs
        (`register("config-struct", ..)`: `X::new(..)`, `.with_f(v)`, literals) registered,
        else a literal of another struct of the crate (`fields.struct_literal_value`); None
        when unknown. A `method` call (`cfg.with_f(v)`) builds only a config."""
        for name in ("config-struct",) if method else ("struct", "config-struct", "own-struct"):
            fn = _EVALUATORS.get(name)
            found = fn(node, self, frame, depth) if fn is not None else None
            if found is not None:
                return found
        return None

    def shape(self, node: Node | None, frame: Frame, depth: int) -> Any:
        """`evaluate.tensors.shape` of `node` in `frame`."""
        return _EVALUATORS["shape"](node, self, frame, depth)

    def item_at(self, node: Node) -> Any:
        """`scope.item_at` of `node` in this file (the crate item a name or path names), looked
        up once per node: a node is evaluated in every frame it is asked about in."""
        key = ("item", node.id)
        if key not in self.memo:
            self.memo[key] = scope.item_at(node, self.unit)
        return self.memo[key]

    def binding(self, ident: Node) -> LocalBinding | None:
        """`rust.locals.find_binding` of `ident` in this file, looked up once."""
        return find_binding(ident, self.unit.src, self.unit.root, self.memo)

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise OutOfBudget


_STATE_KEY = ("evaluate", "state")


def state_of(facts: Any) -> State:
    """The file's evaluator, made once per facts (kept in their `memo`)."""
    memo = getattr(facts, "memo", None)
    found = memo.get(_STATE_KEY) if isinstance(memo, dict) else None
    if found is None:
        unit = unit_of(facts)
        register_unit(unit)
        try:
            ref = weakref.ref(facts)
        except TypeError:  # a stand-in without weak references
            ref = None
        found = State(unit, facts.imports.resolve, facts_ref=ref)
        if isinstance(memo, dict):
            memo[_STATE_KEY] = found
    return found


def state_if_any(facts: Any) -> State | None:
    """The file's evaluator when an analysis of `facts` has made one (`state_of`), else None."""
    memo = getattr(facts, "memo", None)
    found = memo.get(_STATE_KEY) if isinstance(memo, dict) else None
    return found if isinstance(found, State) else None


def state_for(unit: Unit, own: State) -> State:
    """The evaluator of another file of the crate (a const's, a helper's), once per file and
    analysed file (`own`)."""
    if unit is own.unit:
        return own
    found = own.others.get(id(unit))
    if found is None or found.unit is not unit:
        found = own.others[id(unit)] = State(unit, unit.imports.resolve)
    return found

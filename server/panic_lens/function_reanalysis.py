"""Per-function re-analysis: after an edit inside one function body, re-run the rules only for
that function's calls and reuse the other findings and hovers, shifted; else analyse in full.

Never imports pygls. `analyze_edit` must equal `engine.analyze` exactly; it falls back whenever
that is not certain (see `_function_edit`, `_relocated` and `_reuse` for the conditions). A
half-typed line inside the body is fine: tree-sitter keeps its error inside the body's braces
(checked by the changed ranges), and no finding elsewhere depends on it (fixes are judged on
their own function).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from panic_lens import engine
from panic_lens.evaluate import framed_bodies
from panic_lens.model import (
    ALLOW_WORD,
    Analysis,
    Finding,
    HoverFact,
    Point,
    Related,
    Severity,
    Span,
)
from panic_lens.prefilter import substring_finder
from panic_lens.rules.meta import per_rule_set, plain_word, rules
from panic_lens.rust.burn_api import CRATE_ROOTS
from panic_lens.rust.crate import crate_context
from panic_lens.rust.facts import FileFacts, NodeSpan, TrainingSignal
from panic_lens.rust.incremental import edit_of, reparse
from panic_lens.rust.search import declarations
from panic_lens.rust.syntax import Node, Tree, index_in, nodes_of_kinds, starts_between
from panic_lens.settings import Settings

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog


# Words whose mere presence somewhere in the file may change what the rules say about other
# functions: an edit adding the first or removing the last of one falls back to a full analysis.
# Computed from what the rules declare: every word of every rule's prefilter groups (a rule runs
# on a file only when one of its groups is all there), the word every suppression comment
# mentions, and the crate roots a user can name (a fix spells its paths after the one the file
# uses, `burn_rl` or `burn::rl`).
@per_rule_set
def file_words() -> tuple[bytes, ...]:
    return tuple(
        sorted(
            {plain_word(w).encode() for r in rules() for g in r.prefilter_groups for w in g}
            | {ALLOW_WORD}
            | {crate.encode() for crate in CRATE_ROOTS}
        )
    )


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One analysed text and what its next edit may reuse."""

    facts: FileFacts
    run: engine.RuleRun
    analysis: Analysis
    settings: Settings | None
    catalog: Catalog | None
    # the function bodies whose findings read their callers' arguments (`evaluate.callers`):
    # an edit of a function that calls one re-runs it
    framed: frozenset[tuple[int, int]] = frozenset()


@dataclass(frozen=True, slots=True)
class _Shift:
    """The edit [start, old_end) -> [start, new_end), with the points of its ends."""

    start: int
    old_end: int
    new_end: int
    start_point: tuple[int, int]  # (row, column) of start
    old_end_point: tuple[int, int]
    new_end_point: tuple[int, int]
    body: tuple[int, int]  # the old function body: reused spans may not point into it...
    signals: frozenset[Span]  # ...except at training signals, checked unchanged
    path: str | None

    @property
    def delta(self) -> int:
        return self.new_end - self.old_end

    @property
    def rows(self) -> int:
        """The lines the edit adds (negative: removes)."""
        return self.new_end_point[0] - self.old_end_point[0]


class Unmappable(Exception):
    """A reused span overlaps the edit: fall back to a full analysis."""


def analyze_full(
    src: bytes, path: str | None, *, settings: Settings | None, catalog: Catalog | None,
    tree: Tree | None = None,
) -> tuple[Analysis, Snapshot | None]:  # fmt: skip
    """engine.analyze, keeping a Snapshot when the text was analysed normally."""

    def plain() -> tuple[Analysis, None]:
        return engine.analyze(src, path, settings=settings, catalog=catalog, tree=tree), None

    if engine.is_binary(src) or len(src) > engine.MAX_FILE_BYTES:
        return plain()  # skipped, with engine.analyze's note
    try:
        facts = engine.build_facts(src, path, settings=settings, tree=tree)
    except Exception:  # engine.analyze turns the same failure into its note
        return plain()
    run = engine.rule_run(facts, catalog)  # engine.analyze is finish(facts, rule_run(facts))
    analysis = engine.finish(facts, run)
    keep = (
        Snapshot(facts, run, analysis, settings, catalog, framed_bodies(facts))
        if not run.failures
        else None
    )
    return analysis, keep


def analyze_edit(
    old: Snapshot | None, src: bytes, path: str | None, *, settings: Settings | None,
    catalog: Catalog | None, tree: Tree | None = None,
) -> tuple[Analysis, Snapshot | None, bool]:  # fmt: skip
    """The Analysis of `src` (an edit of `old`'s text), a Snapshot for the next edit, and
    whether only one function was re-analysed."""
    if old is not None and old.settings == settings and old.catalog is catalog:
        tree = tree if tree is not None else reparse(old.facts.src, old.facts.tree, src)
        try:
            found = _incremental(old, src, path, tree)
        except Exception:  # a fault in the reuse may cost speed, never the diagnostics
            found = None
        if found is not None:
            return found[0], found[1], True
    return (*analyze_full(src, path, settings=settings, catalog=catalog, tree=tree), False)


def _incremental(
    old: Snapshot, src: bytes, path: str | None, tree: Tree
) -> tuple[Analysis, Snapshot] | None:
    if path != old.facts.path or engine.is_binary(src) or len(src) > engine.MAX_FILE_BYTES:
        return None
    edit = _function_edit(old.facts, src, tree)
    if edit is None:
        return None
    shift, (lo, hi), (new_lo, new_hi) = edit
    crate = crate_context(path)
    if crate != old.facts.crate or engine.layered_settings(crate.metadata, old.settings) != (
        old.facts.settings
    ):
        return None
    try:
        facts = _relocated(old.facts, src, tree, shift, (new_lo, new_hi))
    except Unmappable:
        return None
    if facts is None:
        return None
    runs = [((lo, hi), (new_lo, new_hi), _run_in(facts, old.catalog, (new_lo, new_hi)))]
    try:
        others: dict[tuple[int, int], tuple[int, int]] = {}
        if shift.rows:  # lines moved: re-run the functions whose messages quote a moved line
            quoting = _requoting(old.run, shift, (lo, hi), (new_lo, new_hi), tree)
            if quoting is None:
                return None
            others.update(quoting)
        if old.framed:  # functions whose findings read their callers' arguments
            edited = ((lo, hi), (new_lo, new_hi))
            callees = _callee_bodies(old.facts, edited, src, shift, old.framed)
            if callees is None:
                return None
            others.update(callees)
        runs += [(was, now, _run_in(facts, old.catalog, now)) for was, now in _outermost(others)]
        run = _merge(old.run, shift, runs)
    except Unmappable:
        return None
    if run is None:
        return None
    analysis = engine.finish(facts, run)
    if facts.lost:  # a rule read a declaration or name scope the new tree lacks
        return None
    # the old framed bodies at their new places, but those re-run here, which say anew
    rerun = {was for was, _, _ in runs}
    kept = {_moved(body, shift) for body in old.framed if body not in rerun}
    if None in kept:
        return None
    framed = frozenset({body for body in kept if body is not None} | framed_bodies(facts))
    return analysis, Snapshot(facts, run, analysis, old.settings, old.catalog, framed)


def _run_in(facts: FileFacts, catalog: Catalog | None, body: tuple[int, int]) -> engine.RuleRun:
    """The rules over the calls in bytes `body` of the new text only."""
    facts.only = body
    try:
        return engine.rule_run(facts, catalog)
    finally:
        facts.only = None


def _relocated(
    old: FileFacts, src: bytes, tree: Tree, shift: _Shift, body: tuple[int, int]
) -> FileFacts | None:
    """The new text's facts from the old ones, without walking the file again: only when the
    parse changed nothing outside the body, the body declares nothing, and its training
    signals are the old ones (those decide other functions' findings)."""
    edited = old.tree.copy()
    edited.edit(
        start_byte=shift.start, old_end_byte=shift.old_end, new_end_byte=shift.new_end,
        start_point=shift.start_point, old_end_point=shift.old_end_point,
        new_end_point=shift.new_end_point,
    )  # fmt: skip
    if any(r.start_byte <= body[0] or r.end_byte >= body[1] for r in edited.changed_ranges(tree)):
        return None
    # with the renames known, calls are found by name: only the body's declarations matter
    if old.renames is not None:
        found = declarations(tree, src, body[0], body[1])
    else:
        found = index_in(tree, body[0], body[1])
    if _declares(found, *body):
        return None
    signals = tuple(
        TrainingSignal(s.what, _shift_span(s.span, shift) if s.span is not None else None)
        for s in old.training_signals()
    )

    start, old_end, delta = shift.start, shift.old_end, shift.delta

    def move_spans(spans: list[NodeSpan]) -> list[NodeSpan]:  # ~450 a keystroke: inline
        moved = [
            span if span[1] <= start  # before the edit
            else (span[0] + delta, span[1] + delta, span[2]) if span[0] >= old_end  # after
            else (span[0], span[1] + delta, span[2]) if span[0] <= start and span[1] >= old_end
            else None  # overlaps the edited bytes
            for span in spans
        ]  # fmt: skip
        if None in moved:
            raise Unmappable(spans[moved.index(None)])
        return moved  # type: ignore[return-value]  # no None left

    facts = old.relocated(src, tree, move_spans, signals, (start, old_end, shift.new_end))
    if "call" in found:
        facts.range_calls = (body, found["call"])
    inside = [s for s in signals if s.span is not None and _inside(s.span, body)]
    return facts if inside == list(facts.training_signals_in(*body)) else None


def _function_edit(
    facts: FileFacts, src: bytes, tree: Tree
) -> tuple[_Shift, tuple[int, int], tuple[int, int]] | None:
    """The edit, and the old and new byte ranges of the function body it lies strictly inside.

    None (full analysis) unless: the edit is strictly inside one function body, whose function
    starts and ends at the same place in the new tree; the old body declares no items, impls or
    `use`s; no other function's analysis may read the body (`_read_elsewhere`); and the
    presence of each file_words() word is unchanged. (`_relocated` checks the
    rest: nothing outside the body parses differently, and the new body declares nothing
    either.) An edit may add or remove lines: `_requoting` finds the other functions whose
    messages quote a line number that moved.
    """
    old_src = facts.src
    start, old_end, new_end, start_point, old_end_point, new_end_point = edit_of(old_src, src)
    if _file_words_changed(old_src, src, start, old_end, new_end):
        return None
    body = _body_around(facts.tree, start, old_end)
    if body is None or any(
        facts.starts_in(kind, body.start_byte, body.end_byte) for kind in ("item", "use", "impl")
    ):
        return None
    delta = new_end - old_end
    new_body = _body_around(tree, start, new_end)
    if new_body is None or (new_body.start_byte, new_body.end_byte) != (
        body.start_byte, body.end_byte + delta):  # fmt: skip
        return None
    if _read_elsewhere(body, old_src) or _read_elsewhere(new_body, src):
        return None
    # (Everything outside the body is checked unchanged by tree-sitter's changed ranges in
    # `_relocated`.)
    signals = frozenset(s.span for s in facts.training_signals() if s.span is not None)
    where = (body.start_byte, body.end_byte)
    shift = _Shift(start, old_end, new_end, start_point, old_end_point, new_end_point, where,
                   signals, facts.path)  # fmt: skip
    return shift, (body.start_byte, body.end_byte), (new_body.start_byte, new_body.end_byte)


_STRUCT_LITERAL = frozenset({"struct_expression"})


def _read_elsewhere(body: Node, src: bytes) -> bool:
    """Whether the analysis of other functions may read this body: the evaluator follows the
    fields of a literal of a struct declared in the file into the struct's methods
    (`self.field`), and a crate function's value into its callers (a call of its name
    elsewhere in the file)."""
    for literal in nodes_of_kinds(body, _STRUCT_LITERAL, body.start_byte, body.end_byte):
        name = literal.child_by_field_name("name")
        if name is None or literal.start_byte < body.start_byte:
            continue
        if _declared(src[name.start_byte : name.end_byte].rsplit(b"::", 1)[-1], src):
            return True
    function = body.parent
    name = function.child_by_field_name("name") if function is not None else None
    if function is None or name is None:
        return True
    word = src[name.start_byte : name.end_byte]
    at = src.find(word)  # bytes.find, then a look at what follows: a regex over the file with
    while at >= 0:  # a leading \b cost a millisecond a keystroke on 5,000 lines
        inside = function.start_byte <= at < function.end_byte
        starts = at == 0 or not _IDENT_BYTE.match(src, at - 1)
        if not inside and starts and _CALL_TAIL.match(src, at + len(word)):
            return True
        at = src.find(word, at + 1)
    return False


def _callee_bodies(
    old: FileFacts, edited: tuple[tuple[int, int], tuple[int, int]], src: bytes, shift: _Shift,
    framed: frozenset[tuple[int, int]],
) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:  # fmt: skip
    """The (old, new) byte ranges of the `framed` function bodies (whose findings read their
    callers' arguments: `evaluate.callers`) of functions that the edited body calls, before
    or after the edit (by name, as written: a look at the body's bytes): their findings may
    change with the edit, and their rules run again. None: one the edit cuts across."""
    (lo, hi), (new_lo, new_hi) = edited
    old_text, new_text = old.src[lo:hi], src[new_lo:new_hi]
    bodies: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for was in sorted(framed):
        if was == (lo, hi):
            continue  # the edited function: re-run already
        name = _function_name(old, was)
        if name is None:
            return None
        if not (_calls_name(old_text, name) or _calls_name(new_text, name)):
            continue
        now = _moved(was, shift)
        if now is None:
            return None
        bodies.append((was, now))
    return bodies


def _function_name(facts: FileFacts, body: tuple[int, int]) -> bytes | None:
    """The name of the function whose body is bytes `body` of `facts`' text."""
    node = facts.tree.root_node.descendant_for_byte_range(*body)
    function = node.parent if node is not None else None
    name = function.child_by_field_name("name") if function is not None else None
    if function is None or function.type != "function_item" or name is None:
        return None
    return facts.src[name.start_byte : name.end_byte]


def _calls_name(text: bytes, name: bytes) -> bool:
    """Whether `text` writes `name` as a call's name (`name(`, `name::<..>(`, `.name(`)."""
    at = text.find(name)
    while at >= 0:
        if (at == 0 or not _IDENT_BYTE.match(text, at - 1)) and _CALL_TAIL.match(
            text, at + len(name)
        ):
            return True
        at = text.find(name, at + 1)
    return False


def _declared(type_name: bytes, src: bytes) -> bool:
    """Whether the file declares `struct type_name` or `enum type_name` (found by
    bytes.find: a regex over the whole file costs a keystroke a millisecond)."""
    at = src.find(type_name)
    while at >= 0:
        end = at + len(type_name)
        if not _IDENT_BYTE.match(src, end) and _DECLARES.search(src[max(0, at - 32) : at]):
            return True
        at = src.find(type_name, at + 1)
    return False


_DECLARES = re.compile(rb"(?:^|\W)(?:struct|enum)\s+$")
_IDENT_BYTE = re.compile(rb"\w")
_CALL_TAIL = re.compile(rb"\s*(?:::\s*<[^;{}]*?>\s*)?\(")


def _body_around(tree: Tree, start: int, end: int) -> Node | None:
    """The body block of the innermost function_item whose braces strictly enclose [start, end)."""
    node: Node | None = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and node.type != "function_item":
        node = node.parent
    body = node.child_by_field_name("body") if node is not None else None
    if body is None or body.type != "block":
        return None
    return body if body.start_byte < start and end < body.end_byte else None


def _file_words_changed(old: bytes, new: bytes, start: int, old_end: int, new_end: int) -> bool:
    """Whether the edit adds or removes the last (or first) file_words() word of the file; only
    the words in the edited bytes (with a word's length around them) are searched for in the
    whole file. (An occurrence gained or lost overlaps the edit.)"""
    reach = _longest_file_word() - 1
    near = _file_word_finder()
    found = near(old[max(0, start - reach) : old_end + reach]) | near(
        new[max(0, start - reach) : new_end + reach]
    )
    return any((word in old) != (word in new) for word in found)


@per_rule_set
def _longest_file_word() -> int:
    return max(map(len, file_words()))


@per_rule_set
def _file_word_finder() -> Callable[[bytes], frozenset[bytes]]:
    return substring_finder(file_words())


def _declares(index: dict[str, list[Node]], lo: int, hi: int) -> bool:
    """Whether an item, impl or `use` of `index` (lists in source order) starts in [lo, hi):
    those are file-level facts, and an edit that touches them is analysed in full."""
    return any(starts_between(index.get(kind, []), lo, hi) for kind in ("item", "use", "impl"))


# How findings and hovers quote a line of evidence: "line 12" or "model.rs:12" (the rules'
# messages and the type facts of rust/bindings.py); tests/bench checks every quote is one.
LINE_QUOTE = re.compile(r"(?:\bline |:)([0-9]+)")
MAX_REQUOTED = 32  # functions re-run for their quotes: past this, the full analysis is as quick


def _requoting(
    old: engine.RuleRun, shift: _Shift, old_body: tuple[int, int], new_body: tuple[int, int],
    tree: Tree,
) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:  # fmt: skip
    """After an edit that adds or removes lines: the (old, new) byte ranges of the other function
    bodies holding a finding or hover that quotes a line at or after the edit (its number may
    have moved; re-running the rules there quotes it afresh). None: one is in no function
    body, or there are too many."""
    first = shift.start_point[0] + 1  # the first line number the edit may move
    own = os.path.basename(shift.path) if shift.path else None
    bodies: dict[tuple[int, int], tuple[int, int]] = {}
    items: list[Finding | HoverFact] = [f for _, found in old.findings for f in found]
    for item in (*items, *old.hovers):
        if _inside(item.span, old_body) or not _quotes_from(item, first, own):
            continue
        span = _shift_span(item.span, shift)
        body = _body_around(tree, span.start_byte, span.end_byte)
        if body is None:
            return None
        now = (body.start_byte, body.end_byte)
        if now[1] <= new_body[0]:
            was = now
        elif now[0] >= new_body[1]:
            was = (now[0] - shift.delta, now[1] - shift.delta)
        else:  # around the edited function (a nested fn): not one function's
            return None
        bodies[was] = now
        if len(bodies) > MAX_REQUOTED:
            return None
    return list(bodies.items())


def _moved(body: tuple[int, int], shift: _Shift) -> tuple[int, int] | None:
    """An old body range at its place in the new text (one around the edit grows with it);
    None when the edit cuts across it."""
    if body[1] <= shift.start:
        return body
    if body[0] >= shift.old_end:
        return (body[0] + shift.delta, body[1] + shift.delta)
    if body[0] <= shift.start and body[1] >= shift.old_end:
        return (body[0], body[1] + shift.delta)
    return None


def _outermost(
    bodies: dict[tuple[int, int], tuple[int, int]],
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The (old, new) body ranges in source order, a body inside another left out: it is
    re-run with it (its calls would come twice). Two bodies are nested or apart: they are
    nodes of one tree."""
    outermost: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for was, now in sorted(bodies.items(), key=lambda b: (b[0][0], -b[0][1])):
        if not outermost or was[0] >= outermost[-1][0][1]:
            outermost.append((was, now))
    return outermost


def _quotes_from(item: Any, first: int, own: str | None) -> bool:
    """Whether a string anywhere in `item` quotes a line numbered `first` or later of the file
    named `own`: a quote of another file's line (`base.rs:243`, burn's panic site in every
    derived rule's facts) does not move with this file's lines."""
    if isinstance(item, str):
        return any(
            int(found.group(1)) >= first and _of_this_file(item, found.start(), own)
            for found in LINE_QUOTE.finditer(item)
        )
    if isinstance(item, tuple):
        return any(_quotes_from(x, first, own) for x in item)
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return any(_quotes_from(getattr(item, name), first, own) for name in _field_names(item))
    return False


_FILE_BEFORE = re.compile(r"([\w.-]+\.rs)\Z")


def _of_this_file(text: str, at: int, own: str | None) -> bool:
    """A quote at `at` (its "line " or ":") is of the file named `own` unless a `.rs` file of
    another name is written right before its ":"."""
    named = _FILE_BEFORE.search(text, 0, at) if text.startswith(":", at) else None
    return named is None or named.group(1) == own


def _merge(
    old: engine.RuleRun, shift: _Shift,
    runs: list[tuple[tuple[int, int], tuple[int, int], engine.RuleRun]],
) -> engine.RuleRun | None:  # fmt: skip
    """Old results outside the re-run bodies (shifted), the fresh ones inside them. Each run is
    (old body, new body, its rules' results); the first is the edited function's."""
    rules = [r for r, _ in old.findings]
    for _, body, fresh in runs:
        if fresh.failures or [r for r, _ in fresh.findings] != rules:
            return None
        if not all(_inside(f.span, body) for _, fs in fresh.findings for f in fs):
            return None
        if not all(_inside(h.span, body) for h in fresh.hovers):
            return None
    olds = [was for was, _, _ in runs]

    def reused(items: Iterable[Any]) -> list[Any]:
        """The items outside every re-run body, shifted (one across a body's braces is not
        one function's: Unmappable)."""
        out = []
        for item in items:
            span = item.span
            inside = False
            for lo, hi in olds:
                if lo <= span.start_byte and span.end_byte <= hi:
                    inside = True
                    break
                if span.start_byte < hi and span.end_byte > lo:
                    raise Unmappable(span)
            if not inside:
                out.append(_reuse(item, shift))
        return out

    merged = []
    for i, (rule, found) in enumerate(old.findings):
        items = reused(found)
        for _, _, fresh in runs:
            items += fresh.findings[i][1]
        items.sort(key=lambda f: f.span.start_byte)  # source order, as one run yields them
        merged.append((rule, tuple(items)))
    hovers = reused(old.hovers)
    for _, _, fresh in runs:
        hovers += fresh.hovers
    return engine.RuleRun(tuple(merged), tuple(hovers), ())


def _inside(span: Span, body: tuple[int, int]) -> bool:
    return body[0] <= span.start_byte and span.end_byte <= body[1]


def _reuse(item: Any, shift: _Shift) -> Any:
    """`item` (a Finding or HoverFact outside the body) with every span in it shifted; the
    same object when none moved. (~200 calls a keystroke: plain values are skipped inline.)"""
    kind = type(item)
    if kind in _PLAIN:
        return item
    if kind is Span:
        if _inside(item, shift.body) and item not in shift.signals:
            raise Unmappable(item)  # evidence inside the edited function
        return _shift_span(item, shift)
    if kind is tuple:
        moved: list[Any] | None = None
        for i, x in enumerate(item):
            if type(x) in _PLAIN:
                continue
            y = _reuse(x, shift)
            if y is not x:
                if moved is None:
                    moved = list(item)
                moved[i] = y
        return item if moved is None else tuple(moved)
    if kind is Related and item.path not in (None, shift.path):
        return item  # evidence in another file
    names = _FIELDS.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(item) or isinstance(item, type):
            return item
        names = _field_names(item)
    changes: dict[str, Any] | None = None
    for name in names:
        value = getattr(item, name)
        if type(value) in _PLAIN:
            continue
        new = _reuse(value, shift)
        if new is not value:
            if changes is None:
                changes = {}
            changes[name] = new
    return dataclasses.replace(item, **changes) if changes else item


_PLAIN = frozenset({str, int, float, bool, type(None), Severity})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(item: Any) -> tuple[str, ...]:
    """The field names of dataclass instance `item`, read once per type."""
    names = _FIELDS.get(type(item))
    if names is None:
        names = _FIELDS[type(item)] = tuple(f.name for f in dataclasses.fields(item))
    return names


def _shift_span(span: Span, shift: _Shift) -> Span:
    if span.end_byte <= shift.start:
        return span
    if span.start_byte < shift.old_end:  # overlaps the edited bytes
        raise Unmappable(span)
    return Span(span.start_byte + shift.delta, span.end_byte + shift.delta,
                _shift_point(span.start, shift), _shift_point(span.end, shift))  # fmt: skip


def _shift_point(point: Point, shift: _Shift) -> Point:
    """A point at or after the edit's old end (the caller checked), where the edit moved it."""
    row = shift.old_end_point[0]
    if point.row == row:
        return Point(shift.new_end_point[0], point.col - shift.old_end_point[1]
                     + shift.new_end_point[1])  # fmt: skip
    return Point(point.row + shift.rows, point.col) if shift.rows else point

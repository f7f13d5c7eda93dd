"""Per-function re-analysis, what the old analysis carries to the edited text: which other
function bodies run again with the edited one (`requoting`: a finding elsewhere quotes a line
the edit moved; `callee_bodies`: a function whose findings read its callers' arguments, called
from the edited body), and the old findings and hovers outside the re-run bodies, shifted to
their new places (`merge`). `function_reanalysis` decides when an edit may be analysed so.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from panic_lens import engine
from panic_lens.evaluate.callers import MAX_LEVELS
from panic_lens.model import Finding, HoverFact, Point, Related, Severity, Span
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import Node, Tree


@dataclass(frozen=True, slots=True)
class Shift:
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


def callee_bodies(
    old: FileFacts, edited: tuple[tuple[int, int], tuple[int, int]], src: bytes, shift: Shift,
    framed: frozenset[tuple[int, int]],
) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:  # fmt: skip
    """The (old, new) byte ranges of the `framed` function bodies (whose findings read their
    callers' arguments: `evaluate.callers`) of functions that the edited body calls, before
    or after the edit (by name, as written: a look at the body's bytes), and of the framed
    functions those call in turn (the callers' frames reach two calls up): their findings may
    change with the edit, and their rules run again. None: one the edit cuts across."""
    (lo, hi), (new_lo, new_hi) = edited
    texts = [old.src[lo:hi], src[new_lo:new_hi]]
    bodies: list[tuple[tuple[int, int], tuple[int, int]]] = []
    names: dict[tuple[int, int], bytes] = {}
    for was in sorted(framed):
        name = _function_name(old, was)
        if name is None:
            return None
        names[was] = name
    for _ in range(MAX_LEVELS):  # the levels of callers the evaluator reads
        found = []
        for was, name in names.items():
            if was == (lo, hi) or any(b[0] == was for b in bodies):
                continue  # the edited function (re-run already), or one found before
            if not any(_calls_name(text, name) for text in texts):
                continue
            now = moved(was, shift)
            if now is None:
                return None
            found.append((was, now))
        if not found:
            break
        bodies += found
        texts = [old.src[was[0] : was[1]] for was, _ in found]
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
        if (at == 0 or not IDENT_BYTE.match(text, at - 1)) and CALL_TAIL.match(
            text, at + len(name)
        ):
            return True
        at = text.find(name, at + 1)
    return False


IDENT_BYTE = re.compile(rb"\w")


CALL_TAIL = re.compile(rb"\s*(?:::\s*<[^;{}]*?>\s*)?\(")


def body_around(tree: Tree, start: int, end: int) -> Node | None:
    """The body block of the innermost function_item whose braces strictly enclose [start, end)."""
    node: Node | None = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and node.type != "function_item":
        node = node.parent
    body = node.child_by_field_name("body") if node is not None else None
    if body is None or body.type != "block":
        return None
    return body if body.start_byte < start and end < body.end_byte else None


# How findings and hovers quote a line of evidence: "line 12" or "model.rs:12" (the rules'
# messages and the type facts of rust/bindings.py); tests/bench checks every quote is one.
LINE_QUOTE = re.compile(r"(?:\bline |:)([0-9]+)")
MAX_REQUOTED = 32  # functions re-run for their quotes: past this, the full analysis is as quick


def requoting(
    old: engine.RuleRun, shift: Shift, old_body: tuple[int, int], new_body: tuple[int, int],
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
        if within(item.span, old_body) or not quotes_from(item, first, own):
            continue
        span = shift_span(item.span, shift)
        body = body_around(tree, span.start_byte, span.end_byte)
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


def moved(body: tuple[int, int], shift: Shift) -> tuple[int, int] | None:
    """An old body range at its place in the new text (one around the edit grows with it);
    None when the edit cuts across it."""
    if body[1] <= shift.start:
        return body
    if body[0] >= shift.old_end:
        return (body[0] + shift.delta, body[1] + shift.delta)
    if body[0] <= shift.start and body[1] >= shift.old_end:
        return (body[0], body[1] + shift.delta)
    return None


def outermost(
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


def quotes_from(item: Any, first: int, own: str | None) -> bool:
    """Whether a string anywhere in `item` quotes a line numbered `first` or later of the file
    named `own`: a quote of another file's line (`base.rs:243`, burn's panic site in every
    derived rule's facts) does not move with this file's lines."""
    if isinstance(item, str):
        return any(
            int(found.group(1)) >= first and _of_this_file(item, found.start(), own)
            for found in LINE_QUOTE.finditer(item)
        )
    if isinstance(item, tuple):
        return any(quotes_from(x, first, own) for x in item)
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return any(quotes_from(getattr(item, name), first, own) for name in _field_names(item))
    return False


_FILE_BEFORE = re.compile(r"([\w.-]+\.rs)\Z")


def _of_this_file(text: str, at: int, own: str | None) -> bool:
    """A quote at `at` (its "line " or ":") is of the file named `own` unless a `.rs` file of
    another name is written right before its ":"."""
    named = _FILE_BEFORE.search(text, 0, at) if text.startswith(":", at) else None
    return named is None or named.group(1) == own


def merge(
    old: engine.RuleRun, shift: Shift,
    runs: list[tuple[tuple[int, int], tuple[int, int], engine.RuleRun]],
) -> engine.RuleRun | None:  # fmt: skip
    """Old results outside the re-run bodies (shifted), the fresh ones inside them. Each run is
    (old body, new body, its rules' results); the first is the edited function's."""
    rules = [r for r, _ in old.findings]
    for _, body, fresh in runs:
        if fresh.failures or [r for r, _ in fresh.findings] != rules:
            return None
        if not all(within(f.span, body) for _, fs in fresh.findings for f in fs):
            return None
        if not all(within(h.span, body) for h in fresh.hovers):
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


def within(span: Span, body: tuple[int, int]) -> bool:
    """Whether the span lies in bytes `body`."""
    return body[0] <= span.start_byte and span.end_byte <= body[1]


def _reuse(item: Any, shift: Shift) -> Any:
    """`item` (a Finding or HoverFact outside the body) with every span in it shifted; the
    same object when none moved. (~200 calls a keystroke: plain values are skipped inline.)"""
    kind = type(item)
    if kind in _PLAIN:
        return item
    if kind is Span:
        if within(item, shift.body) and item not in shift.signals:
            raise Unmappable(item)  # evidence inside the edited function
        return shift_span(item, shift)
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


def shift_span(span: Span, shift: Shift) -> Span:
    if span.end_byte <= shift.start:
        return span
    if span.start_byte < shift.old_end:  # overlaps the edited bytes
        raise Unmappable(span)
    return Span(span.start_byte + shift.delta, span.end_byte + shift.delta,
                _shift_point(span.start, shift), _shift_point(span.end, shift))  # fmt: skip


def _shift_point(point: Point, shift: Shift) -> Point:
    """A point at or after the edit's old end (the caller checked), where the edit moved it."""
    row = shift.old_end_point[0]
    if point.row == row:
        return Point(shift.new_end_point[0], point.col - shift.old_end_point[1]
                     + shift.new_end_point[1])  # fmt: skip
    return Point(point.row + shift.rows, point.col) if shift.rows else point

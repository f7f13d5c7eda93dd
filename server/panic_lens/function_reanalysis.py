"""Per-function re-analysis: after an edit inside one function body, re-run the rules only for
that function's calls and reuse the other findings and hovers, shifted; else analyse in full.

Never imports pygls. `analyze_edit` must equal `engine.analyze` exactly; it falls back whenever
that is not certain (see `_function_edit`, `_relocated` and `function_merge._reuse` for the
conditions). A
half-typed line inside the body is fine: tree-sitter keeps its error inside the body's braces
(checked by the changed ranges), and no finding elsewhere depends on it (fixes are judged on
their own function).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from panic_lens import engine
from panic_lens.evaluate import framed_bodies
from panic_lens.function_merge import (
    CALL_TAIL,
    IDENT_BYTE,
    Shift,
    Unmappable,
    body_around,
    callee_bodies,
    merge,
    moved,
    outermost,
    requoting,
    shift_span,
    within,
)
from panic_lens.model import (
    ALLOW_WORD,
    Analysis,
)
from panic_lens.prefilter import substring_finder
from panic_lens.rules.meta import per_rule_set, plain_word, rules
from panic_lens.rust.burn_api import CRATE_ROOTS
from panic_lens.rust.crate import crate_context
from panic_lens.rust.facts import FileFacts, NodeSpan, TrainingSignal
from panic_lens.rust.incremental import edit_of, edited, forget_edited, reparse
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
            quoting = requoting(old.run, shift, (lo, hi), (new_lo, new_hi), tree)
            if quoting is None:
                return None
            others.update(quoting)
        if old.framed:  # functions whose findings read their callers' arguments
            edited = ((lo, hi), (new_lo, new_hi))
            callees = callee_bodies(old.facts, edited, src, shift, old.framed)
            if callees is None:
                return None
            others.update(callees)
        runs += [(was, now, _run_in(facts, old.catalog, now)) for was, now in outermost(others)]
        run = merge(old.run, shift, runs)
    except Unmappable:
        return None
    if run is None:
        return None
    analysis = engine.finish(facts, run)
    if facts.lost:  # a rule read a declaration or name scope the new tree lacks
        return None
    # the old framed bodies at their new places, but those re-run here, which say anew
    rerun = {was for was, _, _ in runs}
    kept = {moved(body, shift) for body in old.framed if body not in rerun}
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
    old: FileFacts, src: bytes, tree: Tree, shift: Shift, body: tuple[int, int]
) -> FileFacts | None:
    """The new text's facts from the old ones, without walking the file again: only when the
    parse changed nothing outside the body, the body declares nothing, and its training
    signals are the old ones (those decide other functions' findings)."""
    before = edited(old.src, old.tree, src)  # the edit is `edit_of(old.src, src)`: the shift's
    moved = before.changed_ranges(tree)
    forget_edited()
    if any(r.start_byte <= body[0] or r.end_byte >= body[1] for r in moved):
        return None
    # with the renames known, calls are found by name: only the body's declarations matter
    if old.renames is not None:
        found = declarations(tree, src, body[0], body[1])
    else:
        found = index_in(tree, body[0], body[1])
    if _declares(found, *body):
        return None
    signals = tuple(
        TrainingSignal(s.what, shift_span(s.span, shift) if s.span is not None else None)
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
    inside = [s for s in signals if s.span is not None and within(s.span, body)]
    return facts if inside == list(facts.training_signals_in(*body)) else None


def _function_edit(
    facts: FileFacts, src: bytes, tree: Tree
) -> tuple[Shift, tuple[int, int], tuple[int, int]] | None:
    """The edit, and the old and new byte ranges of the function body it lies strictly inside.

    None (full analysis) unless: the edit is strictly inside one function body, whose function
    starts and ends at the same place in the new tree; the old body declares no items, impls or
    `use`s; no other function's analysis may read the body (`_read_elsewhere`); and the
    presence of each file_words() word is unchanged. (`_relocated` checks the
    rest: nothing outside the body parses differently, and the new body declares nothing
    either.) An edit may add or remove lines: `requoting` finds the other functions whose
    messages quote a line number that moved.
    """
    old_src = facts.src
    start, old_end, new_end, start_point, old_end_point, new_end_point = edit_of(old_src, src)
    if _file_words_changed(old_src, src, start, old_end, new_end):
        return None
    body = body_around(facts.tree, start, old_end)
    if body is None or any(
        facts.starts_in(kind, body.start_byte, body.end_byte) for kind in ("item", "use", "impl")
    ):
        return None
    delta = new_end - old_end
    new_body = body_around(tree, start, new_end)
    if new_body is None or (new_body.start_byte, new_body.end_byte) != (
        body.start_byte, body.end_byte + delta):  # fmt: skip
        return None
    if _read_elsewhere(body, old_src) or _read_elsewhere(new_body, src):
        return None
    # (Everything outside the body is checked unchanged by tree-sitter's changed ranges in
    # `_relocated`.)
    signals = frozenset(s.span for s in facts.training_signals() if s.span is not None)
    where = (body.start_byte, body.end_byte)
    shift = Shift(start, old_end, new_end, start_point, old_end_point, new_end_point, where,
                   signals, facts.path)  # fmt: skip
    return shift, (body.start_byte, body.end_byte), (new_body.start_byte, new_body.end_byte)


_STRUCT_LITERAL = frozenset({"struct_expression"})


def _read_elsewhere(body: Node, src: bytes) -> bool:
    """Whether the analysis of other functions may read this body: the evaluator follows the
    fields of a literal of a struct declared in the file into the struct's methods
    (`self.field`), and a crate function's value into its callers (a call of its name
    elsewhere in the file). Kept for the last text asked about: typing asks about the body
    of the text before the keystroke, which the keystroke before asked about as the new one."""
    last = _last_read[0]
    if last is not None and last[0] is src and last[1] == (body.start_byte, body.end_byte):
        return last[2]
    found = _reads_body(body, src)
    _last_read[0] = (src, (body.start_byte, body.end_byte), found)
    return found


_last_read: list[tuple[bytes, tuple[int, int], bool] | None] = [None]


def _reads_body(body: Node, src: bytes) -> bool:
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
        starts = at == 0 or not IDENT_BYTE.match(src, at - 1)
        if not inside and starts and CALL_TAIL.match(src, at + len(word)):
            return True
        at = src.find(word, at + 1)
    return False


def _declared(type_name: bytes, src: bytes) -> bool:
    """Whether the file declares `struct type_name` or `enum type_name` (found by
    bytes.find: a regex over the whole file costs a keystroke a millisecond)."""
    at = src.find(type_name)
    while at >= 0:
        end = at + len(type_name)
        if not IDENT_BYTE.match(src, end) and _DECLARES.search(src[max(0, at - 32) : at]):
            return True
        at = src.find(type_name, at + 1)
    return False


_DECLARES = re.compile(rb"(?:^|\W)(?:struct|enum)\s+$")


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

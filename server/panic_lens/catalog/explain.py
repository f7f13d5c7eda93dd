"""explain: which records' messagePatterns match which lines of a text (a message or a log).

One Aho-Corasick pass over the text (ahocorasick_rs, overlapping matches, so a literal inside
or overlapping another is still seen) finds the lines that contain a required literal of some
pattern (see literals.py); only those (pattern, line) pairs run the regex, each with a timeout.
Patterns with no usable literal run once over the whole text. A pattern that times out is
skipped for the rest of the text and reported, so one catastrophic pattern cannot hang explain.

A pattern that spans lines (burn's tensor checks print `=== Tensor Operation Error ===`, then
the operation and the reason on lines of their own, and the pattern says `\n`) is verified on
the lines around its candidate line, as many as it can span; its match is reported on the
line where it starts.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import ahocorasick_rs

from panic_lens.catalog.lines import Lines, line_starts
from panic_lens.catalog.literals import required_factor
from panic_lens.catalog.model import Match
from panic_lens.catalog.patterns import DEFAULT_TIMEOUT, compile_pattern

__all__ = ["DEFAULT_TIMEOUT", "ExplainIndex", "ExplainResult"]


@dataclass(slots=True)
class ExplainResult:
    matches: list[Match] = field(default_factory=list)
    timed_out: list[str] = field(default_factory=list)  # record ids whose pattern timed out


class ExplainIndex:
    """The literal automaton over every pattern; patterns compile when first verified."""

    def __init__(self, patterns: Sequence[tuple[str, str]]) -> None:
        self.ids = [rid for rid, _ in patterns]
        self.patterns = [p for _, p in patterns]
        self.unfiltered: list[int] = []
        self.reach = [line_reach(p) for _, p in patterns]  # lines beyond its first it may span
        # One automaton pattern per distinct literal, with the patterns that require it: the
        # automaton reports a literal given twice twice, and refuses an empty one (literals.py
        # never yields one: its runs are MIN_LITERAL long at least).
        slots: dict[str, int] = {}
        self.owners: list[list[int]] = []
        for index, (_, pattern) in enumerate(patterns):
            factor = required_factor(pattern)
            if factor is None:
                self.unfiltered.append(index)
                continue
            for literal in factor:
                slot = slots.setdefault(literal, len(slots))
                if slot == len(self.owners):
                    self.owners.append([])
                self.owners[slot].append(index)
        self.automaton = (
            ahocorasick_rs.BytesAhoCorasick([_utf8(literal) for literal in slots])
            if slots
            else None
        )

    def search(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> ExplainResult:
        """Matches sorted by line then record id; at most one per (record, line)."""
        lines = Lines(text)
        result = ExplainResult()
        dead: set[int] = set()
        for index, number in sorted(self._candidates(lines), key=lambda c: (c[1], c[0])):
            if index not in dead:
                self._verify(index, lines, number, timeout, result, dead)
        for index in self.unfiltered:
            self._scan(index, lines, timeout, result, dead)
        unique = {(m.record_id, m.line_no): m for m in reversed(result.matches)}  # first kept
        result.matches = sorted(unique.values(), key=lambda m: (m.line_no, m.record_id))
        return result

    def _candidates(self, lines: Lines) -> set[tuple[int, int]]:
        pairs: set[tuple[int, int]] = set()
        if self.automaton is None:
            return pairs
        # Bytes, not str: for a str the automaton first builds a byte-to-code-point table of
        # 8 bytes per byte of text (80 MB for a 10 MB log), and it refuses a lone surrogate
        # (JSON from the editor can carry one). Only line numbers are needed, and UTF-8 keeps
        # "\n" one byte that no other character contains, so lines are counted in the bytes.
        # bytes.lower() lowercases ASCII letters only, as ascii_lower does, and stays fast on
        # a text that is not ASCII, where str.translate takes 0.7 s over 10 MB.
        data = _utf8(lines.text).lower()
        # Overlapping (the standard match kind): every occurrence of every literal, like a
        # search per literal. `end` is exclusive: a literal's line is its last byte's line.
        found = self.automaton.find_matches_as_indexes(data, overlapping=True)
        line_of = lines.line_of if lines.text.isascii() or not found else _byte_lines(data)
        owners = self.owners
        for slot, _, end in found:
            number = line_of(end - 1)
            for index in owners[slot]:  # a plain loop: a generator per match costs 40% more
                pairs.add((index, number))
        return pairs

    def _verify(
        self,
        index: int,
        lines: Lines,
        number: int,
        timeout: float,
        result: ExplainResult,
        dead: set[int],
    ) -> None:
        if self.reach[index]:
            self._verify_lines(index, lines, number, timeout, result, dead)
            return
        line = lines.line(number)
        try:
            m = compile_pattern(self.patterns[index]).search(line, timeout=timeout)
        except TimeoutError:
            dead.add(index)
            result.timed_out.append(self.ids[index])
            return
        if m:
            result.matches.append(Match(self.ids[index], number, line, m.span()))

    def _verify_lines(
        self,
        index: int,
        lines: Lines,
        number: int,
        timeout: float,
        result: ExplainResult,
        dead: set[int],
    ) -> None:
        """A pattern that spans lines, on the lines it may span around line `number` (its
        literal may be on any of them); each match on the line where it starts."""
        reach = self.reach[index]
        first, last = max(1, number - reach), min(len(lines), number + reach)
        window = "\n".join(lines.line(n) for n in range(first, last + 1))
        pattern = compile_pattern(self.patterns[index], multiline=True)  # `^`, `$`: per line
        pos = 0
        while pos <= len(window):
            try:
                m = pattern.search(window, pos, timeout=timeout)
            except TimeoutError:
                dead.add(index)
                result.timed_out.append(self.ids[index])
                return
            if m is None:
                return
            start_line = first + window.count("\n", 0, m.start())
            line = lines.line(start_line)
            column = m.start() - (window.rfind("\n", 0, m.start()) + 1)
            span = (column, min(column + m.end() - m.start(), len(line)))
            result.matches.append(Match(self.ids[index], start_line, line, span))
            pos = window.find("\n", m.start()) + 1 or len(window) + 1  # the next line on

    def _scan(
        self, index: int, lines: Lines, timeout: float, result: ExplainResult, dead: set[int]
    ) -> None:
        # No literal to filter on: search the whole text, then re-check each hit on its own
        # line so `^`, `$` and spans mean the same as for filtered patterns.
        pos, seen = 0, set()
        while pos <= len(lines.text):
            try:
                multiline = compile_pattern(self.patterns[index], multiline=True)
                m = multiline.search(lines.text, pos, timeout=timeout)
            except TimeoutError:
                dead.add(index)
                result.timed_out.append(self.ids[index])
                return
            if m is None:
                return
            number = lines.line_of(m.start())
            if number not in seen:
                seen.add(number)
                self._verify(index, lines, number, timeout, result, dead)
            pos = lines.start_of(number + 1) if number < len(lines) else len(lines.text) + 1


# A pattern that repeats a group holding a line break may span any number of lines; it is
# tried over this many beyond its literal's (a burn tensor check lists a few reasons at most).
REPEATED_LINES = 16
_REPEATED_BREAK = re.compile(r"\\n[^()]*\)[*+{]")


def line_reach(pattern: str) -> int:
    """How many line breaks a match of `pattern` may hold: its `\\n`s (and literal ones),
    more when a repeated group holds one."""
    breaks = pattern.count("\\n") + pattern.count("\n")
    if breaks and _REPEATED_BREAK.search(pattern):
        breaks += REPEATED_LINES
    return breaks


def _utf8(text: str) -> bytes:
    # surrogatepass: every code point, a lone surrogate too, encodes on its own, so an
    # occurrence of a literal in the text is exactly an occurrence of its bytes in the bytes.
    return text.encode("utf-8", "surrogatepass")


def _byte_lines(data: bytes) -> Callable[[int], int]:
    """Byte offset -> 1-based line number, as Lines.line_of is for code point offsets."""
    starts = line_starts(data)
    return lambda offset: bisect_right(starts, offset)

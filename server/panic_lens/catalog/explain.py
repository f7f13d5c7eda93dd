"""explain: which records' messagePatterns match which lines of a text (a message or a log).

One Aho-Corasick pass over the text finds the lines that contain a required literal of some
pattern (see literals.py); only those (pattern, line) pairs run the regex, each with a timeout.
Patterns with no usable literal run once over the whole text. A pattern that times out is
skipped for the rest of the text and reported, so one catastrophic pattern cannot hang explain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import ahocorasick

from panic_lens.catalog.lines import Lines
from panic_lens.catalog.literals import ascii_lower, required_factor
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
        self.automaton = ahocorasick.Automaton()
        for index, (_, pattern) in enumerate(patterns):
            factor = required_factor(pattern)
            if factor is None:
                self.unfiltered.append(index)
                continue
            for literal in factor:
                self._add(literal, index)
        if len(self.automaton):
            self.automaton.make_automaton()

    def _add(self, literal: str, index: int) -> None:
        owners = self.automaton.get(literal, None)
        if owners is None:
            self.automaton.add_word(literal, [index])
        else:
            owners.append(index)

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
        result.matches.sort(key=lambda m: (m.line_no, m.record_id))
        return result

    def _candidates(self, lines: Lines) -> set[tuple[int, int]]:
        pairs: set[tuple[int, int]] = set()
        if not len(self.automaton):
            return pairs
        for end, owners in self.automaton.iter(ascii_lower(lines.text)):
            number = lines.line_of(end)
            pairs.update((index, number) for index in owners)
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
        line = lines.line(number)
        try:
            m = compile_pattern(self.patterns[index]).search(line, timeout=timeout)
        except TimeoutError:
            dead.add(index)
            result.timed_out.append(self.ids[index])
            return
        if m:
            result.matches.append(Match(self.ids[index], number, line, m.span()))

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

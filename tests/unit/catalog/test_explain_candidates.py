"""explain's one-pass literal search gives exactly the (pattern, line) pairs of a plain search.

The reference finds every occurrence of every required literal with `str.find`, one literal at
a time, and takes the line of the occurrence's last character; the index must give the same
set of pairs on any text: overlapping literals, a literal inside another, a literal shared by
several patterns, one spanning a line break, non-ASCII text and lone surrogates included.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from panic_lens.catalog.explain import ExplainIndex
from panic_lens.catalog.lines import Lines
from panic_lens.catalog.literals import ascii_lower, required_factor


def reference(patterns: list[str], text: str) -> set[tuple[int, int]]:
    lines, lowered = Lines(text), ascii_lower(text)
    pairs: set[tuple[int, int]] = set()
    for index, pattern in enumerate(patterns):
        for literal in required_factor(pattern) or ():
            pos = lowered.find(literal)
            while pos != -1:
                pairs.add((index, lines.line_of(pos + len(literal) - 1)))
                pos = lowered.find(literal, pos + 1)
    return pairs


def candidates(patterns: list[str], text: str) -> set[tuple[int, int]]:
    index = ExplainIndex([(f"r{i}", p) for i, p in enumerate(patterns)])
    return index._candidates(Lines(text))


PATTERNS = [
    r"abab\d",  # overlaps itself: "ababab" holds it twice
    r"bab(.+?)x",  # overlaps "abab"
    r"error: (.+)",  # inside the next one
    r"an error: (.+)",
    r"(?i)ERROR: (.+)",  # the same literal as "error: ", from another pattern
    r"ok\ntest",  # spans a line break: the line of its last character
    r"日本 widget",
    r"🔥 fire",
    r"(?:foob|barb)az\d",  # two literals, one pattern
    r"^\d+ ?ok$",  # no literal: never a candidate (searched whole instead)
]
TEXTS = [
    "",
    "ababab\nxbabyx\n",
    "an error: disk\nERROR: An Error: nested\n",
    "ok\ntest ok\ntest\r\nok\r\ntest\n",
    "🔥 日本 widget 7\n日本 widget\n🔥 fire 🔥 FIRE\n",
    "é" * 50 + "\nfoobaz1 barbaz2\n" + "日" * 30 + " abab1 🔥 fire",
    "\ud800 an error: lone surrogate\n\udfff日本 widget\n",
    "no literal here\n12 ok\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_candidates_are_every_occurrence_of_every_literal(text: str) -> None:
    assert candidates(PATTERNS, text) == reference(PATTERNS, text)


def test_fixed_texts_have_the_expected_pairs() -> None:
    # a guard on the reference itself: the pairs written out for two texts
    assert reference(PATTERNS, TEXTS[1]) == {(0, 1), (1, 1), (1, 2)}
    assert reference(PATTERNS, TEXTS[3]) == {(5, 2), (5, 3)}
    text = TEXTS[4]
    assert candidates(PATTERNS, text) == {(6, 1), (6, 2), (7, 3)}


def test_a_literal_shared_by_patterns_gives_each_of_them() -> None:
    patterns = [r"widget (\d+) exploded", r"(?i)WIDGET (\d+) EXPLODED", r"(\d+) exploded"]
    assert {required_factor(p) for p in patterns} == {frozenset({" exploded"})}
    text = "x\nWidget 7 exploded\n8 exploded\n"
    assert candidates(patterns, text) == {(i, n) for i in range(3) for n in (2, 3)}


def test_no_literal_at_all() -> None:
    assert candidates([], "anything\n") == set()
    index = ExplainIndex([("anchored", r"^\d+ ?ok$")])
    assert index._candidates(Lines("1 ok\n")) == set()
    assert [m.line_no for m in index.search("1 ok\nno\n22 ok\n").matches] == [1, 3]


def test_search_reads_non_ascii_and_lone_surrogates() -> None:
    index = ExplainIndex([("w", r"widget (\d+) exploded")])
    text = "\ud800🔥\n日本 widget 9 exploded\r\n\udfff widget 1 exploded"
    found = [(m.line_no, m.line, m.span) for m in index.search(text).matches]
    assert found == [
        (2, "日本 widget 9 exploded", (3, 20)),
        (3, "\udfff widget 1 exploded", (2, 19)),
    ]


# Texts and literals from one small alphabet, so literals occur, overlap and nest; letters of
# both cases, line endings, multi-byte characters and a lone surrogate.
_ALPHABET = ["a", "b", "A", "B", " ", "\n", "\r", "é", "日", "🔥", "\ud800"]
_LITERAL = st.text(st.sampled_from(_ALPHABET), min_size=3, max_size=6)
_TEXT = st.text(st.sampled_from(_ALPHABET), max_size=300)


@given(st.lists(_LITERAL, min_size=1, max_size=8), _TEXT)
def test_candidates_match_the_reference_on_any_text(literals: list[str], text: str) -> None:
    patterns = [regex.escape(literal) for literal in literals]
    assert candidates(patterns, text) == reference(patterns, text)


@given(st.lists(_LITERAL, min_size=1, max_size=4), st.lists(_LITERAL, max_size=6), st.data())
def test_literals_planted_in_a_text_are_found(
    literals: list[str], noise: list[str], data: st.DataObject
) -> None:
    pieces = data.draw(st.permutations(literals + noise))
    text = data.draw(st.sampled_from(["", "\n", "é", "🔥\r\n"])).join(pieces)
    patterns = [regex.escape(literal) for literal in literals]
    found = candidates(patterns, text)
    assert found == reference(patterns, text)
    assert {index for index, _ in found} == set(range(len(literals)))

"""In-process properties of the open-document structures kept up to date per edit.

LspTextDocument splices each incremental edit and updates its line starts instead of rebuilding
the text line by line as pygls does; LineIndex.of_lines reads rows through those line starts.
Both must give exactly what the from-scratch versions give, for any text and any edit, the
odd ones included (columns past a line's end, lines past the end, reversed ranges, edits that
split or join a CRLF).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument

from panic_lens.lsp.convert import LineIndex
from panic_lens.lsp.protocol import LspTextDocument
from panic_lens.model import Point

PIECES = ["a", "bc", "é", "中", "🦀", "\n", "\r\n", "\r", "\t", "\u2028", "\x0c", " "]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
POSITIONS = st.builds(types.Position, line=st.integers(0, 12), character=st.integers(0, 12))
CHANGES = st.builds(
    lambda start, end, text: types.TextDocumentContentChangePartial(
        range=types.Range(start=start, end=end), text=text
    ),
    POSITIONS,
    POSITIONS,
    TEXTS,
)
ENCODINGS = st.sampled_from([types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8])
PROPS = settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
LSP_BREAK = re.compile(r"\r\n|\r|\n")


class RebuildingDocument(TextDocument):
    """The previous LspTextDocument: pygls's line-by-line edit over LSP lines."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(LSP_LINE.findall(self.source))


def copy(change: types.TextDocumentContentChangePartial) -> types.TextDocumentContentChangePartial:
    """pygls's position codec may clamp a position in place: each document gets its own."""
    start, end = change.range.start, change.range.end
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(start.line, start.character),
            end=types.Position(end.line, end.character),
        ),
        text=change.text,
    )


@PROPS
@given(text=TEXTS, changes=st.lists(CHANGES, max_size=6), encoding=ENCODINGS)
def test_edits_give_pygls_text_and_fresh_line_starts(
    text: str, changes: list[types.TextDocumentContentChangePartial], encoding: str
) -> None:
    codec = PositionCodec(encoding)
    doc = LspTextDocument("file:///t.rs", text, 1, position_codec=codec)
    reference = RebuildingDocument("file:///t.rs", text, 1, position_codec=codec)
    # computed from the text once (LF-split lengths without a CR), then kept up to date
    assert doc.line_starts() == [0, *(m.end() for m in LSP_BREAK.finditer(text))]
    for change in changes:
        before = doc.content_id
        doc.apply_change(copy(change))
        reference.apply_change(copy(change))
        assert doc.source == reference.source
        fresh = [0, *(m.end() for m in LSP_BREAK.finditer(doc.source))]
        if doc._starts_of is doc.source:  # updated by the edit (not a reversed range)
            assert doc._starts == fresh
        assert doc.line_starts() == fresh
        assert tuple(doc.lines) == reference.lines
        assert len(doc.lines) == len(reference.lines)
        assert doc.content_id != before


ASCII_TEXTS = st.lists(st.sampled_from([p for p in PIECES if p.isascii()]), max_size=30).map(
    "".join
)


@PROPS
@given(text=ASCII_TEXTS, changes=st.lists(CHANGES, max_size=6), encoding=ENCODINGS)
def test_edits_of_ascii_texts_give_pygls_text(
    text: str, changes: list[types.TextDocumentContentChangePartial], encoding: str
) -> None:
    """An ASCII text's positions are converted without pygls's codec: the same clamping."""
    test_edits_give_pygls_text_and_fresh_line_starts.hypothesis.inner_test(text, changes, encoding)


@PROPS
@given(
    text=TEXTS, changes=st.lists(CHANGES, max_size=4), encoding=st.sampled_from(["utf-16", "utf-8"])
)
def test_index_of_lines_equals_index_of_text(
    text: str, changes: list[types.TextDocumentContentChangePartial], encoding: str
) -> None:
    doc = LspTextDocument("file:///t.rs", text, 1)
    for change in changes:
        doc.apply_change(change)
    source = doc.source
    kept = LineIndex.of_lines(source, doc.line_starts(), encoding)  # type: ignore[arg-type]
    fresh = LineIndex.of(source, encoding)  # type: ignore[arg-type]
    assert tuple(kept.lines) == tuple(fresh.lines)
    assert len(kept.lines) == len(fresh.lines)
    for row in range(-1, len(fresh.lines) + 2):
        assert kept.line(row) == fresh.line(row)
        for col in range(0, len(fresh.line(row)) + 3):
            point = Point(row, col)
            assert kept.position(point) == fresh.position(point)
            position = types.Position(line=max(row, 0), character=col)
            assert kept.point(position) == fresh.point(position)


def test_full_changes_rebuild_the_line_starts() -> None:
    doc = LspTextDocument("file:///t.rs", "a\nb\n", 1)
    assert doc.line_starts() == [0, 2, 4]
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="x\r\ny\rz"))
    assert doc.source == "x\r\ny\rz"
    assert doc.line_starts() == [0, 3, 5]
    assert tuple(doc.lines) == ("x\r\n", "y\r", "z")

"""Property: engine points and LSP positions convert both ways at every character boundary.

Engine rows count LF only; LSP lines end at LF, CRLF or a lone CR; columns are UTF-16 or
UTF-8 units. The expected position is computed here from the text alone, independently.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from rel_support import BOUNDED, point_at

from panic_lens.lsp.convert import LineIndex
from panic_lens.positions import Encoding

PIECES = ["a", "é", "中", "🦀", "\n", "\r\n", "\r", "\t", "\u2028", "\x0c", " "]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
LSP_BREAK = re.compile(r"\r\n|\r|\n")


def expected(text: str, offset: int, encoding: Encoding) -> types.Position:
    """The LSP position of code point `offset` (never inside a CRLF) in `text`."""
    starts = [0] + [m.end() for m in LSP_BREAK.finditer(text)]
    line = max(i for i, s in enumerate(starts) if s <= offset)
    prefix = text[starts[line] : offset]
    unit = {"utf-16": "utf-16-le", "utf-8": "utf-8"}[encoding]
    width = 2 if encoding == "utf-16" else 1
    return types.Position(line=line, character=len(prefix.encode(unit)) // width)


@settings(BOUNDED, max_examples=300)
@given(text=TEXTS, encoding=st.sampled_from(["utf-16", "utf-8"]))
def test_points_and_positions_round_trip(text: str, encoding: Encoding) -> None:
    src = text.encode("utf-8")
    index = LineIndex.of(text, encoding)
    for offset in range(len(text) + 1):
        if text[offset - 1 : offset + 1] == "\r\n":
            continue  # between CR and LF: no LSP position names it
        point = point_at(src, len(text[:offset].encode("utf-8")))
        position = expected(text, offset, encoding)
        assert index.position(point) == position, (offset, point)
        assert index.point(position) == point, (offset, position)

"""The one place where byte columns become client or terminal columns.

tree-sitter reports UTF-8 byte columns. LSP wants UTF-16 code units unless UTF-8 (or UTF-32)
was negotiated; terminals and SARIF want 1-based character (code point) columns.
"""

from __future__ import annotations

from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]


def byte_col_to(line: bytes, byte_col: int, encoding: Encoding) -> int:
    """Convert a byte column of `line` (no newline) into a column in `encoding` units.

    A column inside a multi-byte character is clamped to that character's start; a column
    past the end of the line is clamped to the line's end.
    """
    byte_col = max(0, min(byte_col, len(line)))
    if encoding == "utf-8":
        return byte_col
    head = line[:byte_col]
    if head.isascii():  # most code: one unit per byte in every encoding
        return byte_col
    prefix = head.decode("utf-8", errors="ignore")
    if encoding == "utf-32":
        return len(prefix)
    return len(prefix.encode("utf-16-le")) // 2


def col_to_byte(line: bytes, col: int, encoding: Encoding) -> int:
    """Inverse of `byte_col_to`: a client column in `encoding` units to a byte column."""
    if encoding == "utf-8":
        return max(0, min(col, len(line)))
    text = line.decode("utf-8", errors="replace")
    units = 0
    for i, ch in enumerate(text):
        if units >= col:
            return len(text[:i].encode("utf-8"))
        units += 1 if encoding == "utf-32" or ord(ch) < 0x10000 else 2
    return len(line)

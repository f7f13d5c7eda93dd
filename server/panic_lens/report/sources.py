"""Source lines for reports: 1-based code point positions, read once per file.

Findings carry 0-based rows and UTF-8 byte columns; every report shows 1-based lines and
1-based code point columns (what rustc, SARIF `unicodeCodePoints` and editors' "Go to" use).
The conversion itself is `panic_lens.positions.byte_col_to`, nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from panic_lens.model import Point, Span
from panic_lens.positions import byte_col_to

STDIN_NAME = "<stdin>"


@dataclass(frozen=True, slots=True)
class Region:
    """1-based start and end (line, code point column), end exclusive like the span."""

    line: int
    column: int
    end_line: int
    end_column: int


class Sources:
    """Lazily read source files; `texts` supplies files that are not on disk (stdin, tests)."""

    def __init__(self, texts: Mapping[str, bytes] | None = None) -> None:
        self._data: dict[str, bytes | None] = dict(texts or {})
        self._lines: dict[str, list[bytes] | None] = {}

    def data(self, path: str | None) -> bytes | None:
        """The file's bytes, or None when it cannot be read."""
        key = path or STDIN_NAME
        if key not in self._data:
            try:
                self._data[key] = Path(key).read_bytes()
            except OSError:
                self._data[key] = None
        return self._data[key]

    def lines(self, path: str | None) -> list[bytes] | None:
        key = path or STDIN_NAME
        if key not in self._lines:
            data = self.data(path)
            self._lines[key] = data.split(b"\n") if data is not None else None
        return self._lines[key]

    def line(self, path: str | None, row: int) -> bytes | None:
        """Row `row` (0-based) without its line ending, or None when unknown."""
        lines = self.lines(path)
        if lines is None or not 0 <= row < len(lines):
            return None
        return lines[row].rstrip(b"\r")

    def column(self, path: str | None, point: Point) -> int:
        """The 1-based code point column of `point`; byte column + 1 if the file is gone."""
        line = self.line(path, point.row)
        return (point.col if line is None else byte_col_to(line, point.col, "utf-32")) + 1

    def region(self, path: str | None, span: Span) -> Region:
        return Region(
            span.start.row + 1,
            self._column_at(path, span.start, span.start_byte),
            span.end.row + 1,
            self._column_at(path, span.end, span.end_byte),
        )

    def _column_at(self, path: str | None, point: Point, byte: int) -> int:
        """`column(path, point)` from the point's byte offset: the line's text before it is
        the `point.col` bytes before `byte`, so the file need not be split into lines. Falls
        back to `column` when those bytes are not the start of a line (a span made by hand,
        a file changed since)."""
        data = self.data(path)
        start = byte - point.col
        if data is None or start < 0 or byte > len(data) or (start and data[start - 1] != 10):
            return self.column(path, point)
        prefix = data[start:byte]
        if b"\n" in prefix or b"\r" in prefix:
            return self.column(path, point)
        return byte_col_to(prefix, point.col, "utf-32") + 1


def display_path(path: str | None) -> str:
    return path or STDIN_NAME

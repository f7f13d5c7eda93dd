"""Source lines for reports: 1-based code point positions, read once per file.

Findings carry 0-based rows and UTF-8 byte columns; every report shows 1-based lines and
1-based code point columns (what rustc, SARIF `unicodeCodePoints` and editors' "Go to" use).
The conversion itself is `panic_lens.positions.byte_col_to`, nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from panic_lens.positions import byte_col_to
from panic_lens.rules.base import Point, Span

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
        self._lines: dict[str, list[bytes] | None] = {}
        for path, data in (texts or {}).items():
            self._lines[path] = data.split(b"\n")

    def lines(self, path: str | None) -> list[bytes] | None:
        key = path or STDIN_NAME
        if key not in self._lines:
            try:
                self._lines[key] = Path(key).read_bytes().split(b"\n")
            except OSError:
                self._lines[key] = None
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
            self.column(path, span.start),
            span.end.row + 1,
            self.column(path, span.end),
        )


def display_path(path: str | None) -> str:
    return path or STDIN_NAME

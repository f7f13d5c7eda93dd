"""Line lookup over one text: offsets to 1-based line numbers and back, built in one pass."""

from __future__ import annotations

import re
from bisect import bisect_right

_NEWLINE = re.compile("\n")
_NEWLINE_BYTES = re.compile(b"\n")


def line_starts(text: str | bytes) -> list[int]:
    """The offsets where the lines of `text` start (code points of a str, bytes of bytes)."""
    newline = _NEWLINE if isinstance(text, str) else _NEWLINE_BYTES
    return [0, *(m.end() for m in newline.finditer(text))]  # type: ignore[arg-type]


class Lines:
    """The lines of `text`; offsets and spans are in code points (Python string indices)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)

    def __len__(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        """The 1-based number of the line holding `offset`."""
        return bisect_right(self.starts, offset)

    def start_of(self, number: int) -> int:
        return self.starts[number - 1]

    def line(self, number: int) -> str:
        """Line `number` without its line ending."""
        end = self.starts[number] - 1 if number < len(self.starts) else len(self.text)
        return self.text[self.starts[number - 1] : end].rstrip("\r")

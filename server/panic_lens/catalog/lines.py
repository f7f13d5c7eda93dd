"""Line lookup over one text: offsets to 1-based line numbers and back, built in one pass."""

from __future__ import annotations

import re
from bisect import bisect_right

_NEWLINE = re.compile("\n")


class Lines:
    """The lines of `text`; offsets and spans are in code points (Python string indices)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]

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

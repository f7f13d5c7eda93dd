"""Rust's identifier bytes, shared by every byte-level search (the prefilter, the declaration
and module searches), so they all agree on where a word ends.
"""

from __future__ import annotations

from collections.abc import Iterator

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def word_starts(text: bytes, word: bytes) -> Iterator[int]:
    """Where `word` is written in `text` as a whole word (no identifier byte on either side)."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or text[at - 1] not in WORD_BYTES) and (
            end == len(text) or text[end] not in WORD_BYTES
        ):
            yield at
        at = text.find(word, at + 1)

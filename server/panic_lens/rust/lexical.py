"""Rust's lexical classes as bytes patterns: identifier bytes, string and char literals.

Shared by every byte-level search (the prefilter, the declaration and module searches), so
they all agree on where a word, a string or a char ends.
"""

from __future__ import annotations

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

STRING_LITERAL = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
CHAR_LITERAL = (
    rb"'(?:\\(?:u\{[0-9A-Fa-f_]{1,8}\}|x[0-9A-Fa-f]{2}|.)"
    rb"|[^\\'\n\r\t]|[\xc0-\xf7][\x80-\xbf]{1,3})'"
)

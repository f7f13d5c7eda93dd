"""Rust's identifier bytes, shared by every byte-level search (the prefilter, the declaration
and module searches), so they all agree on where a word ends.
"""

from __future__ import annotations

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

"""Incremental re-parse of an edited document: one tree-sitter edit from the changed byte range
(trees of `syntax.parse_code`, as the analysis reads them).

The server keeps each open document's last text and tree; a didChange re-parses from them, so
tree-sitter reuses every subtree outside the edit instead of parsing the whole file again.
"""

from __future__ import annotations

from panic_lens.rust.syntax import Tree, parse_code


def changed_range(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old_end, new_end): the smallest byte range whose replacement turns old into new.
    (`edit_of` keeps the last answer, for the re-parse and the re-analysis of one edit.)"""
    start = _common_prefix(old, new)
    limit = min(len(old), len(new)) - start
    tail = _common_suffix(old, new, limit)
    return start, len(old) - tail, len(new) - tail


def reparse(old: bytes, old_tree: Tree, new: bytes) -> Tree:
    """The tree of `new`, re-parsed from `old_tree` (the tree of `old`, which stays unchanged)."""
    if old == new:
        return old_tree
    start, old_end, new_end = edit_of(old, new)[:3]
    tree = edited(old, old_tree, new)
    return parse_code(new, (tree, old, [(start, old_end, new_end - start)]))


def edited(old: bytes, old_tree: Tree, new: bytes) -> Tree:
    """A copy of `old_tree` with the edit that makes `new` of `old`: the tree tree-sitter
    re-parses from, and compares the new tree with (`changed_ranges`, fastest against the very
    tree the parse started from). Kept for the last edit, as `edit_of` keeps its range."""
    last = _last_edited[0]
    if last is not None and last[0] is old and last[1] is new and last[2] == id(old_tree):
        return last[3]
    start, old_end, new_end, start_point, old_end_point, new_end_point = edit_of(old, new)
    tree = old_tree.copy()
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=start_point,
        old_end_point=old_end_point,
        new_end_point=new_end_point,
    )
    _last_edited[0] = (old, new, id(old_tree), tree)  # (not the old tree: freed with its text)
    return tree


def forget_edited() -> None:
    """Drop the edited copy `edited` keeps (the keystroke that asked for it is done)."""
    _last_edited[0] = None


_last_edited: list[tuple[bytes, bytes, int, Tree] | None] = [None]


Edit = tuple[int, int, int, tuple[int, int], tuple[int, int], tuple[int, int]]


def edit_of(old: bytes, new: bytes) -> Edit:
    """`changed_range(old, new)` and the (row, column) points of its three ends, as
    tree-sitter's edits take them. Kept like the range: the re-parse and the re-analysis ask
    about the same edit."""
    last = _last_edit[0]
    if last is not None and last[0] is old and last[1] is new:
        return last[2]
    start, old_end, new_end = changed_range(old, new)
    start_point = point(old, start)
    found = (start, old_end, new_end, start_point, point_after(old, start, start_point, old_end),
             point_after(new, start, start_point, new_end))  # fmt: skip
    _last_edit[0] = (old, new, found)
    # The next edit is of `new`, near this one: its start is counted from here.
    _anchor[0] = (new, new_end, found[5])
    return found


_last_edit: list[tuple[bytes, bytes, Edit] | None] = [None]
# (text, offset, its point): where `point` last counted lines in a text, so that the next
# edit of that text (typing: a few bytes away) counts the lines in between, not from the top
_anchor: list[tuple[bytes, int, tuple[int, int]] | None] = [None]


def point(src: bytes, offset: int) -> tuple[int, int]:
    """(row, byte column) of `offset`, as tree-sitter's edits take it."""
    anchor = _anchor[0]
    if anchor is not None and anchor[0] is src:
        at, (row, _) = anchor[1], anchor[2]
        if offset >= at:
            row += src.count(b"\n", at, offset)
        else:
            row -= src.count(b"\n", offset, at)
    else:
        row = src.count(b"\n", 0, offset)
    return row, offset - (src.rfind(b"\n", 0, offset) + 1)


def point_after(src: bytes, start: int, at: tuple[int, int], offset: int) -> tuple[int, int]:
    """`point(src, offset)` for `offset` >= `start`, whose point is `at`: counting from there."""
    row = at[0] + src.count(b"\n", start, offset)
    line = src.rfind(b"\n", start, offset)
    return row, (at[1] + offset - start) if line < 0 else offset - line - 1


_CHUNK = 4096


def _common_prefix(a: bytes, b: bytes) -> int:
    """Equal 4 KB chunks first, then a binary search inside the first unequal one: every
    comparison is a memcmp of at most a chunk (slices of the whole text would copy it)."""
    n = min(len(a), len(b))
    at = 0
    while at < n and a[at : at + _CHUNK] == b[at : at + _CHUNK]:
        at += _CHUNK
    if at >= n:
        return n
    lo, hi = at, min(at + _CHUNK, n)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[at:mid] == b[at:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """The length of the longest common suffix of `a` and `b`, at most `limit`."""
    la, lb = len(a), len(b)
    got = 0
    while got < limit:
        step = min(_CHUNK, limit - got)
        if a[la - got - step : la - got] != b[lb - got - step : lb - got]:
            break
        got += step
    else:
        return got
    lo, hi = got, got + step
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - got] == b[lb - mid : lb - got]:
            lo = mid
        else:
            hi = mid - 1
    return lo

"""Building blocks for machine fixes: spans for insertions, deletions and `use` additions.

Each helper returns an `Edit` on byte offsets of the analysed source; rules combine them into
a `Fix` and tests apply them, re-parse, and re-run the rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from panic_lens.model import Edit, Point, Span
from panic_lens.rust.syntax import Node, Tree, line_indent, parse_code, span_of


def point_at(src: bytes, offset: int) -> Point:
    """Row and byte column of a byte offset."""
    row = src.count(b"\n", 0, offset)
    return Point(row, offset - (src.rfind(b"\n", 0, offset) + 1))


def span_between(src: bytes, start: int, end: int) -> Span:
    return Span(start, end, point_at(src, start), point_at(src, end))


def replace_node(node: Node, text: str) -> Edit:
    return Edit(span_of(node), text)


def insert_at(src: bytes, offset: int, text: str) -> Edit:
    return Edit(span_between(src, offset, offset), text)


def insert_statement_before(src: bytes, stmt: Node, text: str) -> Edit:
    """`text` as a new statement on its own line before `stmt`, at the same indentation."""
    return insert_at(src, stmt.start_byte, f"{text}\n{line_indent(src, stmt)}")


def delete_statement(src: bytes, stmt: Node) -> Edit:
    """Remove `stmt`; with its whole line when nothing else shares that line."""
    line_start = src.rfind(b"\n", 0, stmt.start_byte) + 1
    line_end = src.find(b"\n", stmt.end_byte)
    line_end = len(src) if line_end < 0 else line_end
    alone = (
        not src[line_start : stmt.start_byte].strip() and not src[stmt.end_byte : line_end].strip()
    )
    if alone:
        return Edit(span_between(src, line_start, min(line_end + 1, len(src))), "")
    return Edit(span_of(stmt), "")


def insert_use(src: bytes, module_body: Node, path: str) -> Edit:
    """`use <path>;` after the last `use` of a module body (the file or a `mod { .. }`)."""
    uses = [c for c in module_body.named_children if c.type == "use_declaration"]
    if uses:
        anchor = uses[-1]
        return insert_at(src, anchor.end_byte, f"\n{line_indent(src, anchor)}use {path};")
    offset = _after_inner_attributes(src, module_body.named_children, module_body)
    indent = "" if module_body.type == "source_file" else "    "
    prefix = "\n" if module_body.type != "source_file" and offset > module_body.start_byte else ""
    return insert_at(src, offset, f"{prefix}{indent}use {path};\n")


def apply_edits(src: bytes, edits: Iterable[Edit]) -> bytes:
    """The source with `edits` applied (they must not overlap)."""
    out = src
    for edit in sorted(edits, key=lambda e: e.span.start_byte, reverse=True):
        out = out[: edit.span.start_byte] + edit.new_text.encode() + out[edit.span.end_byte :]
    return out


def reparse_edited(tree: Tree, src: bytes, edits: Iterable[Edit]) -> tuple[bytes, Tree]:
    """`src` with `edits` applied, and its tree re-parsed incrementally from `tree` (of `src`).

    A full parse of a 5,000-line file per candidate fix was half of that file's analysis;
    tree-sitter reuses every subtree the edits do not touch. `tree` itself is left as it was.
    """
    edited = tree.copy()
    for edit in sorted(edits, key=lambda e: e.span.start_byte, reverse=True):
        text = edit.new_text.encode()
        start, end = edit.span.start, edit.span.end
        rows = text.count(b"\n")
        col = len(text) - text.rfind(b"\n") - 1 if rows else start.col + len(text)
        edited.edit(
            start_byte=edit.span.start_byte,
            old_end_byte=edit.span.end_byte,
            new_end_byte=edit.span.start_byte + len(text),
            start_point=(start.row, start.col),
            old_end_point=(end.row, end.col),
            new_end_point=(start.row + rows, col),
        )
    new_src = apply_edits(src, edits)
    spans = sorted((e.span.start_byte, e.span.end_byte, len(e.new_text.encode())) for e in edits)
    return new_src, parse_code(new_src, (edited, src, spans))


def _after_inner_attributes(src: bytes, children: list[Node], body: Node) -> int:
    """The start of the line after leading `#![..]` attributes and `//!` comments of a body."""
    start = body.start_byte + (1 if body.type == "declaration_list" else 0)
    offset = start
    for child in children:
        text = child.text or b""
        if child.type == "inner_attribute_item" or text.startswith(b"//!"):
            offset = child.end_byte
            continue
        break
    if offset == start or src[offset - 1 : offset] == b"\n":  # line comments end with it
        return offset
    newline = src.find(b"\n", offset)
    return len(src) if newline < 0 else newline + 1

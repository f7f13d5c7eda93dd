"""Engine results as LSP JSON, without lsprotocol: positions in the negotiated encoding and
the diagnostics the server publishes.

`lsp/convert.py` builds lsprotocol objects on top of this (hovers, code actions, pull
diagnostics); the push path and `serve`'s quick start (`quickstart.py`, which runs before
lsprotocol is imported) send these JSON objects as they are. Columns go through
`panic_lens.positions` only; this module just finds the line they sit on.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, overload

from panic_lens.model import Finding, Point, Severity, Span
from panic_lens.positions import Encoding, byte_col_to, col_to_byte
from panic_lens.rules.meta import generation, rule_by_id

SOURCE = "panic-lens"
# LSP's DiagnosticSeverity numbers
SEVERITY_NUMBER = {
    Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4
}  # fmt: skip
UNNECESSARY = 1  # LSP's DiagnosticTag.Unnecessary: an allow that silences nothing, faded


class ClientPosition(Protocol):
    """An LSP Position as the client sent it (lsprotocol's, or any object alike)."""

    @property
    def line(self) -> int: ...
    @property
    def character(self) -> int: ...


@dataclass(frozen=True, slots=True)
class LineIndex:
    """The UTF-8 lines of one text and the client's encoding: byte points <-> LSP positions.

    Engine rows count LF only (as tree-sitter does); LSP lines also end at a lone CR. When the
    text has a lone CR, `lsp_starts` and `row_starts` (byte offsets) map between the two.
    """

    lines: Sequence[bytes]
    encoding: Encoding
    lsp_starts: tuple[int, ...] | None = None
    row_starts: tuple[int, ...] = ()
    data: bytes = b""

    @classmethod
    def of(cls, text: str | bytes, encoding: Encoding) -> Self:
        data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
        lines = tuple(data.split(b"\n"))
        if _LONE_CR.search(data) is None:
            return cls(lines, encoding)
        lsp_starts = (0, *(m.end() for m in _LSP_BREAK.finditer(data)))
        row_starts = (0, *(m.end() for m in re.finditer(rb"\n", data)))
        return cls(lines, encoding, lsp_starts, row_starts, data)

    @classmethod
    def of_lines(cls, text: str, line_starts: list[int], encoding: Encoding) -> Self:
        """`of(text)` for an open document whose LSP line starts (code point offsets, kept up
        to date per edit) are known: rows are then encoded one at a time, when a finding needs
        them, instead of the whole text per keystroke. A text with a lone CR (rows and LSP
        lines differ) takes `of`."""
        # a line break that is not an LF is a lone CR (a CR alone is found at memchr speed)
        if "\r" in text and len(line_starts) - 1 != text.count("\n"):
            return cls.of(text, encoding)
        return cls(_Rows(text, line_starts), encoding)

    def line(self, row: int) -> bytes:
        line = self.lines[row] if 0 <= row < len(self.lines) else b""
        return line[:-1] if line.endswith(b"\r") else line

    def line_character(self, point: Point) -> tuple[int, int]:
        """The LSP (line, character) of a (row, byte column) point."""
        if self.lsp_starts is None:
            col = byte_col_to(self.line(point.row), point.col, self.encoding)
            return max(point.row, 0), col
        row = min(max(point.row, 0), len(self.row_starts) - 1)
        offset = self.row_starts[row] + point.col
        line = max(0, bisect_right(self.lsp_starts, offset) - 1)
        col = byte_col_to(self._lsp_line(line), offset - self.lsp_starts[line], self.encoding)
        return line, col

    def range_json(self, span: Span) -> dict[str, dict[str, int]]:
        """The LSP Range of a span as the JSON object the protocol sends."""
        start_line, start_char = self.line_character(span.start)
        end_line, end_char = self.line_character(span.end)
        return {
            "start": {"line": start_line, "character": start_char},
            "end": {"line": end_line, "character": end_char},
        }

    def point(self, position: ClientPosition) -> Point:
        """A client position as a (row, byte column) point."""
        if self.lsp_starts is None:
            col = col_to_byte(self.line(position.line), position.character, self.encoding)
            return Point(position.line, col)
        if position.line >= len(self.lsp_starts):
            offset = len(self.data)
        else:
            line = self._lsp_line(position.line)
            offset = self.lsp_starts[position.line] + col_to_byte(
                line, position.character, self.encoding
            )
        row = bisect_right(self.row_starts, offset) - 1
        return Point(row, offset - self.row_starts[row])

    def _lsp_line(self, line: int) -> bytes:
        """LSP line `line` without its terminator (lone-CR texts only)."""
        assert self.lsp_starts is not None
        start = self.lsp_starts[line]
        end = self.lsp_starts[line + 1] if line + 1 < len(self.lsp_starts) else len(self.data)
        return _LSP_BREAK.sub(b"", self.data[start:end])


class _Rows(Sequence[bytes]):
    """`text.encode().split(b"\\n")` row by row, for a text without a lone CR, whose LSP line
    starts are then its row starts; a row keeps the CR of a CRLF, as `split` does."""

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str, starts: list[int]) -> None:
        self._text = text
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, row: int) -> bytes: ...
    @overload
    def __getitem__(self, row: slice) -> Sequence[bytes]: ...
    def __getitem__(self, row: int | slice) -> bytes | Sequence[bytes]:
        if isinstance(row, slice):
            return tuple(self[i] for i in range(*row.indices(len(self))))
        if row < 0:
            row += len(self._starts)
        if not 0 <= row < len(self._starts):
            raise IndexError("row out of range")
        starts = self._starts
        end = starts[row + 1] - 1 if row + 1 < len(starts) else len(self._text)
        return self._text[starts[row] : end].encode("utf-8", errors="surrogatepass")


_LONE_CR = re.compile(rb"\r(?!\n)")
_LSP_BREAK = re.compile(rb"\r\n|\r|\n")


LinesFor = Callable[[str], LineIndex | None]  # a path -> its LineIndex (None: unreadable)
# a path -> its URI, as the client spells it (the LSP layer passes pygls's from_fs_path)
UriOf = Callable[[str], str]


def is_source(uri: str) -> bool:
    """Rust text to analyse: not a manifest, lock or record file some client sent us."""
    return not uri.endswith((".toml", ".lock", ".json", ".jsonl"))


def finding_key(finding: Finding) -> str:
    """Identifies a finding within one analysis of one file (rule and start byte)."""
    return f"{finding.rule}@{finding.span.start_byte}"


def diagnostic_data(finding: Finding) -> dict[str, Any]:
    """A diagnostic's `data`: what code actions need to find the finding and its fixes."""
    return {
        "rule": finding.rule,
        "key": finding_key(finding),
        "records": list(finding.records),
        "fixes": [fix.id for fix in finding.fixes],
    }


def diagnostic_json(
    finding: Finding, index: LineIndex, uri: str, lines_for: LinesFor, uri_of: UriOf
) -> dict[str, Any]:
    """`convert.lsp_diagnostic`'s Diagnostic as the JSON object the protocol sends (what
    lsprotocol's converter makes of it, tests/lsp check), built directly: a keystroke's publish
    then makes no attrs objects to validate and unstructure again."""
    href = doc_uri(finding.rule)
    found: dict[str, Any] = {
        "range": index.range_json(finding.span),
        "message": finding.message,
        "severity": SEVERITY_NUMBER[finding.severity],
        "code": finding.rule,
    }
    if href:
        found["codeDescription"] = {"href": href}
    found["source"] = SOURCE
    if finding.severity is Severity.HINT and _unused_allow(
        finding
    ):  # before related, as lsprotocol
        found["tags"] = [UNNECESSARY]
    related = [
        {"location": {"uri": target, "range": other.range_json(rel.span)}, "message": rel.message}
        for rel, other, target in related_evidence(finding, index, uri, lines_for, uri_of)
    ]
    if related:
        found["relatedInformation"] = related
    found["data"] = diagnostic_data(finding)
    return found


def _unused_allow(finding: Finding) -> bool:
    from panic_lens.rules.suppress import is_unused_allow

    return is_unused_allow(finding)


def related_evidence(
    finding: Finding, index: LineIndex, uri: str, lines_for: LinesFor, uri_of: UriOf
) -> list[tuple[Any, LineIndex, str]]:
    """(evidence, the LineIndex of its file, its file's URI) for each piece of evidence whose
    file can be read."""
    out = []
    for rel in finding.evidence:
        other = lines_for(rel.path) if rel.path and rel.path != finding.path else index
        if other is None:
            continue
        target = uri_of(rel.path) if other is not index and rel.path else uri
        out.append((rel, other, target))
    return out


def doc_uri(rule: str) -> str | None:
    """The address of the rule's page when it has one that exists (`catalog.ruledocs`), once
    per rule and state of the registry: it looks at the disk, which cost more than the rest of
    a diagnostic's conversion."""
    key = (rule, generation())
    if key not in _DOC_URIS:
        if len(_DOC_URIS) > 4096:
            _DOC_URIS.clear()
        from panic_lens.catalog.ruledocs import doc_link

        info = rule_by_id(rule)
        _DOC_URIS[key] = doc_link(info) if info else None
    return _DOC_URIS[key]


_DOC_URIS: dict[tuple[str, int], str | None] = {}

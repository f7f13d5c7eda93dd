"""Engine results to LSP types: ranges in the negotiated encoding, diagnostics, text edits.

Columns go through `panic_lens.positions` only; this module just finds the line they sit on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lsprotocol import types
from pygls.uris import from_fs_path

from panic_lens.positions import Encoding, byte_col_to, col_to_byte
from panic_lens.rules.base import Edit, Finding, Point, Severity, Span
from panic_lens.rules.meta import RULES_BY_ID

SOURCE = "panic-lens"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


@dataclass(frozen=True, slots=True)
class LineIndex:
    """The UTF-8 lines of one text and the client's encoding: byte points <-> LSP positions."""

    lines: tuple[bytes, ...]
    encoding: Encoding

    @classmethod
    def of(cls, text: str | bytes, encoding: Encoding) -> LineIndex:
        data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
        return cls(tuple(data.split(b"\n")), encoding)

    def line(self, row: int) -> bytes:
        line = self.lines[row] if 0 <= row < len(self.lines) else b""
        return line[:-1] if line.endswith(b"\r") else line

    def position(self, point: Point) -> types.Position:
        col = byte_col_to(self.line(point.row), point.col, self.encoding)
        return types.Position(line=max(point.row, 0), character=col)

    def range(self, span: Span) -> types.Range:
        return types.Range(start=self.position(span.start), end=self.position(span.end))

    def point(self, position: types.Position) -> Point:
        """A client position as a (row, byte column) point."""
        col = col_to_byte(self.line(position.line), position.character, self.encoding)
        return Point(position.line, col)


LinesFor = Callable[[str], LineIndex | None]  # a path -> its LineIndex (None: unreadable)


def lsp_severity(severity: Severity) -> types.DiagnosticSeverity:
    return _SEVERITY[severity]


def finding_key(finding: Finding) -> str:
    """Identifies a finding within one analysis of one file (rule and start byte)."""
    return f"{finding.rule}@{finding.span.start_byte}"


def lsp_diagnostic(
    finding: Finding, index: LineIndex, uri: str, lines_for: LinesFor
) -> types.Diagnostic:
    """One Finding as a Diagnostic; `data` carries what code actions need."""
    info = RULES_BY_ID.get(finding.rule)
    return types.Diagnostic(
        range=index.range(finding.span),
        message=finding.message,
        severity=lsp_severity(finding.severity),
        code=finding.rule,
        code_description=types.CodeDescription(href=info.doc_uri) if info else None,
        source=SOURCE,
        related_information=_related(finding, index, uri, lines_for) or None,
        data={
            "rule": finding.rule,
            "key": finding_key(finding),
            "records": list(finding.records),
            "fixes": [fix.id for fix in finding.fixes],
        },
    )


def _related(
    finding: Finding, index: LineIndex, uri: str, lines_for: LinesFor
) -> list[types.DiagnosticRelatedInformation]:
    out = []
    for rel in finding.evidence:
        other = lines_for(rel.path) if rel.path and rel.path != finding.path else index
        if other is None:
            continue
        target = path_uri(rel.path) if other is not index and rel.path else uri
        location = types.Location(uri=target, range=other.range(rel.span))
        out.append(types.DiagnosticRelatedInformation(location=location, message=rel.message))
    return out


def lsp_text_edits(edits: Sequence[Edit], index: LineIndex) -> list[types.TextEdit]:
    return [types.TextEdit(range=index.range(e.span), new_text=e.new_text) for e in edits]


def path_uri(path: str) -> str:
    return from_fs_path(path) or path

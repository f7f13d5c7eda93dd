"""Engine results to LSP types: ranges in the negotiated encoding, diagnostics, text edits.

The positions and the JSON diagnostics live in `panic_lens.diagnostics` (no lsprotocol); this
module makes lsprotocol objects of them for hovers, code actions and pull diagnostics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from panic_lens import diagnostics
from panic_lens.diagnostics import (
    SOURCE,
    LinesFor,
    diagnostic_data,
    doc_uri,
    finding_key,
    related_evidence,
)
from panic_lens.model import Edit, Finding, Point, Severity, Span
from panic_lens.rules.suppress import is_unused_allow

__all__ = [
    "SOURCE",
    "LineIndex",
    "LinesFor",
    "diagnostic_json",
    "finding_key",
    "lsp_diagnostic",
    "lsp_severity",
    "lsp_text_edits",
    "path_uri",
]

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


class LineIndex(diagnostics.LineIndex):
    """`diagnostics.LineIndex` with lsprotocol Positions and Ranges."""

    __slots__ = ()

    def position(self, point: Point) -> types.Position:
        return _position(self, point)

    def range(self, span: Span) -> types.Range:
        return _range(self, span)


def path_uri(path: str) -> str:
    """The URI of a file named by evidence, as pygls spells it (so lookups match)."""
    return from_fs_path(path) or path


def diagnostic_json(
    finding: Finding, index: diagnostics.LineIndex, uri: str, lines_for: LinesFor
) -> dict[str, Any]:
    """`lsp_diagnostic` as the JSON object the protocol sends (diagnostics.diagnostic_json)."""
    return diagnostics.diagnostic_json(finding, index, uri, lines_for, path_uri)


def lsp_severity(severity: Severity) -> types.DiagnosticSeverity:
    return _SEVERITY[severity]


def lsp_diagnostic(
    finding: Finding, index: diagnostics.LineIndex, uri: str, lines_for: LinesFor
) -> types.Diagnostic:
    """One Finding as a Diagnostic; `data` carries what code actions need."""
    href = doc_uri(finding.rule)
    return types.Diagnostic(
        range=_range(index, finding.span),
        message=finding.message,
        severity=lsp_severity(finding.severity),
        code=finding.rule,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=_related(finding, index, uri, lines_for) or None,
        tags=[types.DiagnosticTag.Unnecessary] if is_unused_allow(finding) else None,
        data=diagnostic_data(finding),
    )


def _position(index: diagnostics.LineIndex, point: Point) -> types.Position:
    line, character = index.line_character(point)
    return types.Position(line=line, character=character)


def _range(index: diagnostics.LineIndex, span: Span) -> types.Range:
    """Any LineIndex's span as an lsprotocol Range (`LineIndex.range` for the subclass)."""
    return types.Range(start=_position(index, span.start), end=_position(index, span.end))


def _related(
    finding: Finding, index: diagnostics.LineIndex, uri: str, lines_for: LinesFor
) -> list[types.DiagnosticRelatedInformation]:
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=target, range=_range(other, rel.span)),
            message=rel.message,
        )
        for rel, other, target in related_evidence(finding, index, uri, lines_for, path_uri)
    ]


def lsp_text_edits(edits: Sequence[Edit], index: diagnostics.LineIndex) -> list[types.TextEdit]:
    return [types.TextEdit(range=_range(index, e.span), new_text=e.new_text) for e in edits]

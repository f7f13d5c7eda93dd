"""The JSON report: `{"version", "findings": [...], "errors": [...]}`, 1-based code points.

Each finding has exactly path, line, column, end_line, end_column, rule, severity, message,
records and fixes; a fix is {id, title, preferred, behavior_change, edits}, each edit a
region plus new_text. `version` is the panic-lens version that wrote the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from panic_lens import __version__
from panic_lens.model import Finding, Fix
from panic_lens.report.errors import ReportError, error_dict
from panic_lens.report.jsontext import indented
from panic_lens.report.sources import Region, Sources, display_path
from panic_lens.report.text import sort_key


def json_report(
    findings: Sequence[Finding], errors: Sequence[ReportError], sources: Sources
) -> dict[str, Any]:
    ordered = sorted(findings, key=lambda f: sort_key(f, sources))
    return {
        "version": __version__,
        "findings": [finding_dict(f, sources) for f in ordered],
        "errors": [error_dict(e) for e in errors],
    }


def render_json(
    findings: Sequence[Finding], errors: Sequence[ReportError], sources: Sources
) -> str:
    return indented(json_report(findings, errors, sources)) + "\n"


def finding_dict(finding: Finding, sources: Sources) -> dict[str, Any]:
    return {
        "path": display_path(finding.path),
        **region_dict(sources.region(finding.path, finding.span)),
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": finding.message,
        "records": list(finding.records),
        "fixes": [fix_dict(fix, finding, sources) for fix in finding.fixes],
    }


def fix_dict(fix: Fix, finding: Finding, sources: Sources) -> dict[str, Any]:
    return {
        "id": fix.id,
        "title": fix.title,
        "preferred": fix.preferred,
        "behavior_change": fix.behavior_change,
        "edits": [
            {**region_dict(sources.region(finding.path, e.span)), "new_text": e.new_text}
            for e in fix.edits
        ],
    }


def region_dict(region: Region) -> dict[str, int]:
    return {
        "line": region.line,
        "column": region.column,
        "end_line": region.end_line,
        "end_column": region.end_column,
    }

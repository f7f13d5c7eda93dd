"""Errors that travel with a report: unreadable paths, unusable records and rule files."""

from __future__ import annotations

from typing import Any

from panic_lens.catalog.model import RecordError
from panic_lens.rules.language.spec import RuleFileError
from panic_lens.walk import PathError

ReportError = PathError | RecordError | RuleFileError


def error_dict(error: ReportError) -> dict[str, Any]:
    """The JSON form: `kind` says which; record errors keep line, record id and field."""
    if isinstance(error, RuleFileError):
        return {
            "kind": "rule",
            "path": error.path,
            "line": error.line,
            "key": error.key,
            "reason": error.reason,
        }
    if isinstance(error, RecordError):
        return {
            "kind": "record",
            "path": error.path,
            "line": error.line,
            "record_id": error.record_id,
            "field": error.field,
            "reason": error.reason,
        }
    return {"kind": "path", "path": error.path, "reason": error.reason}


def error_text(error: ReportError) -> str:
    """One line for stderr."""
    if isinstance(error, RuleFileError):
        return f"panic-lens: rule file error: {error}"
    if isinstance(error, RecordError):
        return f"panic-lens: record error: {error}"
    return f"panic-lens: {error.path}: {error.reason}"

"""The SARIF 2.1.0 report: one run, every rule in use with its docs, results, fixes.

Each rule's `help.markdown` is its page, or made from the rule when it has none
(`catalog.ruledocs`); `helpUri` is given only for a page on the web (a report is read on
another machine: a local file would not be there).

Columns are 1-based code points (`columnKind: unicodeCodePoints`). Related locations come
from a finding's evidence; `fixes` carry the finding's machine-applicable edits only.
Record and path errors become tool execution notifications.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from panic_lens import __version__
from panic_lens.catalog.coverage import origin_of
from panic_lens.catalog.ruledocs import rule_markdown, web_link
from panic_lens.model import Finding, Fix, Related, Severity, Span
from panic_lens.report.errors import ReportError, error_text
from panic_lens.report.jsontext import indented
from panic_lens.report.sources import Region, Sources, display_path
from panic_lens.report.text import behaviour_note, sort_key
from panic_lens.rules.meta import RuleInfo, rules

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


def sarif_report(
    findings: Sequence[Finding], errors: Sequence[ReportError], sources: Sources
) -> dict[str, Any]:
    ordered = sorted(findings, key=lambda f: sort_key(f, sources))
    rule_ids = [r.id for r in rules()]
    run: dict[str, Any] = {
        "tool": {"driver": driver(_records_by_rule(findings))},
        "columnKind": "unicodeCodePoints",
        "results": [result(f, sources, rule_ids) for f in ordered],
        "invocations": [invocation(errors)],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_sarif(
    findings: Sequence[Finding], errors: Sequence[ReportError], sources: Sources
) -> str:
    return indented(sarif_report(findings, errors, sources)) + "\n"


def driver(records: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The tool and every rule in use; `records`: per rule, the records its findings cite
    (listed in the help of a rule that has no page)."""
    found = records or {}
    return {
        "name": "panic-lens",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [rule_descriptor(r, found.get(r.id, ())) for r in rules()],
    }


def _records_by_rule(findings: Sequence[Finding]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in findings:
        out.setdefault(finding.rule, []).extend(finding.records)
    return {rule: list(dict.fromkeys(ids)) for rule, ids in out.items()}


def rule_descriptor(rule: RuleInfo, record_ids: Sequence[str] = ()) -> dict[str, Any]:
    link = web_link(rule)
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.summary},
        "help": {"text": rule.summary, "markdown": rule_markdown(rule, record_ids)},
        **({"helpUri": link} if link else {}),
        "defaultConfiguration": {"level": LEVELS[rule.default_severity]},
        "properties": {"source": origin_of(rule)},
    }


def result(finding: Finding, sources: Sources, rule_ids: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [location(finding.path, finding.span, sources)],
    }
    if finding.rule in rule_ids:
        out["ruleIndex"] = rule_ids.index(finding.rule)
    if finding.evidence:
        out["relatedLocations"] = [
            related(i, e, finding, sources) for i, e in enumerate(finding.evidence)
        ]
    fixes = [sarif_fix(fix, finding, sources) for fix in finding.fixes if fix.edits]
    if fixes:
        out["fixes"] = fixes
    if finding.records:
        out["properties"] = {"records": list(finding.records)}
    return out


def location(path: str | None, span: Span, sources: Sources) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(path)},
            "region": region(sources.region(path, span)),
        }
    }


def related(index: int, evidence: Related, finding: Finding, sources: Sources) -> dict[str, Any]:
    path = evidence.path or finding.path
    return {
        "id": index,
        **location(path, evidence.span, sources),
        "message": {"text": evidence.message},
    }


def sarif_fix(fix: Fix, finding: Finding, sources: Sources) -> dict[str, Any]:
    note = behaviour_note(fix)
    replacements = [
        {
            "deletedRegion": region(sources.region(finding.path, e.span)),
            "insertedContent": {"text": e.new_text},
        }
        for e in fix.edits
    ]
    return {
        "description": {"text": fix.title + note},
        "artifactChanges": [
            {"artifactLocation": {"uri": artifact_uri(finding.path)}, "replacements": replacements}
        ],
    }


def invocation(errors: Sequence[ReportError]) -> dict[str, Any]:
    out: dict[str, Any] = {"executionSuccessful": True}
    if errors:
        out["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": error_text(e)}} for e in errors
        ]
    return out


def region(r: Region) -> dict[str, int]:
    return {
        "startLine": r.line,
        "startColumn": r.column,
        "endLine": r.end_line,
        "endColumn": r.end_column,
    }


def artifact_uri(path: str | None) -> str:
    """Absolute paths as file URIs; relative ones as relative URI references."""
    name = display_path(path)
    if path and Path(path).is_absolute():
        return Path(path).as_uri()
    return quote(name.replace("\\", "/"))

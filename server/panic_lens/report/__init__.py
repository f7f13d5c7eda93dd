"""Reports for `panic-lens check`: text (rustc-like), JSON and SARIF 2.1.0."""

from __future__ import annotations

from panic_lens.report.errors import ReportError, error_dict, error_text
from panic_lens.report.json_report import json_report, render_json
from panic_lens.report.sarif import render_sarif, sarif_report
from panic_lens.report.sources import Region, Sources
from panic_lens.report.text import render_text

FORMATS = ("text", "json", "sarif")

__all__ = [
    "FORMATS",
    "Region",
    "ReportError",
    "Sources",
    "error_dict",
    "error_text",
    "json_report",
    "render_json",
    "render_sarif",
    "render_text",
    "sarif_report",
]

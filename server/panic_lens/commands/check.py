"""`panic-lens check`: analyse Rust files and print a text, JSON or SARIF report.

Exit 0 when nothing is at or above --fail-on, 1 when something is, 2 for usage errors or
unreadable paths (and for record errors under --strict).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from typing import TYPE_CHECKING, Any

from panic_lens.commands.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    add_record_options,
    add_rule_options,
    load_records,
    print_errors,
    use_rules,
)
from panic_lens.model import Finding, Settings, Severity
from panic_lens.report import (
    FORMATS,
    ReportError,
    Sources,
    render_json,
    render_sarif,
    render_text,
)
from panic_lens.settings import parse_settings

if TYPE_CHECKING:
    from panic_lens.commands.progress import Bar

FAIL_ON = ("error", "warning", "info", "never")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("check", help="check Rust files or folders for burn calls that panic")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or folders")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="warning",
        help="exit 1 when a finding is at or above this severity (default warning)",
    )
    p.add_argument("--strict", action="store_true", help="record errors make the exit code 2")
    p.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="RULE=LEVEL",
        help="error, warning, information, hint or off for one rule; repeatable",
    )
    p.add_argument(
        "--ctc-capacity",
        type=int,
        metavar="N",
        help="the ctc kernel's alpha capacity, for patched burn builds (default 8192)",
    )
    add_rule_options(p)
    add_record_options(p)
    p.set_defaults(handler=check_command)


def check_command(args: argparse.Namespace) -> int:
    rule_errors = use_rules(args)  # first: --severity may name a rule of a --rules folder
    settings, problems = settings_from_args(args)
    if problems:
        for problem in problems:
            print(f"panic-lens check: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from panic_lens.batch import check_paths
    from panic_lens.cache import AnalysisCache

    cache = AnalysisCache.from_env()
    loaded = load_records(args)  # shipped, --records and Cargo.toml's (commands.common.sources)
    with progress_bar() as bar:  # gone (the line blanked) before anything below prints
        result = check_paths(
            args.paths, settings=settings, catalog=loaded.catalog, cache=cache, progress=bar
        )
    errors: list[ReportError] = [*result.errors, *rule_errors, *loaded.errors]
    err = io.StringIO()
    print_errors(errors, err)
    for note in result.notes:  # e.g. a file skipped for its size: never silently unchecked
        print(f"panic-lens check: note: {note}", file=err)
    out = render(args.format, result.findings, errors, result.files)
    sys.stderr.write(err.getvalue())
    sys.stdout.write(out)
    if result.errors or rule_errors or (args.strict and loaded.errors):
        return EXIT_USAGE
    return EXIT_FINDINGS if fails(result.findings, args.fail_on) else EXIT_OK


def progress_bar() -> contextlib.AbstractContextManager[Bar | None]:
    """A progress bar on stderr when it is a terminal (`commands.progress`), else nothing."""
    try:
        if not sys.stderr.isatty():  # then the bar's module (it draws from a thread) stays out
            return contextlib.nullcontext()
    except (AttributeError, ValueError):
        return contextlib.nullcontext()
    from panic_lens.commands import progress

    if not progress.wanted(sys.stderr):
        return contextlib.nullcontext()
    return progress.Bar(sys.stderr)


def settings_from_args(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    """The CLI flags as the same settings keys Cargo.toml and the editors use."""
    raw: dict[str, Any] = {}
    problems: list[str] = []
    for item in args.severity:
        rule, sep, level = item.partition("=")
        if not sep:
            problems.append(f"--severity expects RULE=LEVEL, got {item!r}")
        raw.setdefault("severity", {})[rule.strip()] = level.strip()
    if args.ctc_capacity is not None:
        raw["ctcCapacity"] = args.ctc_capacity
    result = parse_settings(raw)
    return result.settings, problems + list(result.errors)


def fails(findings: tuple[Finding, ...], fail_on: str) -> bool:
    if fail_on == "never":
        return False
    threshold = Severity.parse(fail_on).rank
    return any(f.severity.rank >= threshold for f in findings)


def render(fmt: str, findings: tuple[Finding, ...], errors: list[ReportError], files: int) -> str:
    sources = Sources()
    if fmt == "json":
        return render_json(findings, errors, sources)
    if fmt == "sarif":
        return render_sarif(findings, errors, sources)
    return render_text(findings, sources, files=files)

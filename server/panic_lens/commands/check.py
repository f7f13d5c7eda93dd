"""`panic-lens check`: analyse Rust files and print a text, JSON or SARIF report; with
`--fix` (and `--unsafe-fixes`) apply the fixes first, with `--diff` print them
(`commands.fix`).

Exit 0 when nothing is at or above --fail-on, 1 when something is, 2 for usage errors,
unreadable paths or files a fix could not write (and for record errors under --strict). With
`--diff`: 1 when there is something to fix, else 0.
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
from panic_lens.rules.meta import SUPPRESSION_RULE
from panic_lens.settings import parse_settings

if TYPE_CHECKING:
    from panic_lens.commands.fix import FixOutcome
    from panic_lens.commands.progress import Bar
    from panic_lens.walk import CheckResult

FAIL_ON = ("error", "warning", "information", "hint", "never")
FAIL_ON_ALIASES = {"info": "information", "warn": "warning"}  # what Severity.parse also takes


def add_parser(sub: Any) -> None:
    p = sub.add_parser("check", help="check Rust files or folders for burn calls that panic")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or folders")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument(
        "--fail-on",
        type=_fail_on,
        choices=FAIL_ON,
        default="warning",
        help="exit 1 when a finding is at or above this severity (default warning; "
        "`info` is `information`)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="record errors make the exit code 2; a suppression that silences nothing, "
        "names an unknown rule or gives no reason is an error",
    )
    p.add_argument(
        "--fix",
        action="store_true",
        help="apply the fixes that keep what the program computes, then check again",
    )
    p.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff: also the fixes that change behaviour (a value, a mode)",
    )
    p.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes --fix would apply as a unified diff; write nothing",
    )
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


def _fail_on(text: str) -> str:
    key = text.strip().lower()
    return FAIL_ON_ALIASES.get(key, key)


def check_command(args: argparse.Namespace) -> int:
    rule_errors = use_rules(args)  # first: --severity may name a rule of a --rules folder
    settings, problems = settings_from_args(args)
    problems += fix_flag_problems(args)
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
    fixed: FixOutcome | None = None
    if args.fix or args.diff:
        from panic_lens.commands import fix

        fixed = fix.run_fixes(
            result.findings, settings=settings, catalog=loaded.catalog,
            unsafe=args.unsafe_fixes, write=args.fix,
        )  # fmt: skip
        if args.diff:
            return report_diff(fixed, [*result.errors, *rule_errors, *loaded.errors])
        if fixed.files:  # the report is of the files as they are now
            with progress_bar() as bar:
                result = check_paths(
                    args.paths, settings=settings, catalog=loaded.catalog, cache=cache,
                    progress=bar,
                )  # fmt: skip
    findings = strict_findings(result.findings) if args.strict else result.findings
    fix_errors = fixed.errors if fixed is not None else []
    errors: list[ReportError] = [*result.errors, *fix_errors, *rule_errors, *loaded.errors]
    report(args.format, findings, errors, result, fixed)
    if result.errors or fix_errors or rule_errors or (args.strict and loaded.errors):
        return EXIT_USAGE
    return EXIT_FINDINGS if fails(findings, args.fail_on) else EXIT_OK


def report(
    fmt: str,
    findings: tuple[Finding, ...],
    errors: list[ReportError],
    result: CheckResult,
    fixed: FixOutcome | None,
) -> None:
    """The report on stdout; errors, notes and (beside a JSON or SARIF report, which stays
    what it is) what --fix changed on stderr."""
    err = io.StringIO()
    print_errors(errors, err)
    for note in result.notes:  # e.g. a file skipped for its size: never silently unchecked
        print(f"panic-lens check: note: {note}", file=err)
    out = render(fmt, findings, errors, result.files)
    if fmt == "text":
        out = text_with_fixes(out, findings, fixed)
    elif fixed is not None:
        err.write("".join(f"{line}\n" for line in fix_lines(fixed)))
    sys.stderr.write(err.getvalue())
    sys.stdout.write(out)


def fix_flag_problems(args: argparse.Namespace) -> list[str]:
    if args.fix and args.diff:
        return ["--fix writes the fixes and --diff only prints them: give one of them"]
    if args.unsafe_fixes and not (args.fix or args.diff):
        return ["--unsafe-fixes goes with --fix or --diff"]
    return []


def report_diff(fixed: FixOutcome, errors: list[ReportError]) -> int:
    """`--diff`: the edits on stdout, what they fix on stderr; 1 when there is something."""
    err = io.StringIO()
    print_errors([*errors, *fixed.errors], err)
    err.write("".join(f"{line}\n" for line in fix_lines(fixed)))
    sys.stderr.write(err.getvalue())
    sys.stdout.write(fixed.diff)
    if errors or fixed.errors:
        return EXIT_USAGE
    return EXIT_FINDINGS if fixed.files else EXIT_OK


def fix_lines(fixed: FixOutcome) -> list[str]:
    from panic_lens.commands import fix

    return [*fixed.lines, fix.summary(fixed)]


def text_with_fixes(out: str, findings: tuple[Finding, ...], fixed: FixOutcome | None) -> str:
    """The text report, after what `--fix` changed, and before a note of what it could."""
    from panic_lens.commands import fix

    head = "".join(f"{line}\n" for line in fix_lines(fixed)) if fixed is not None else ""
    note = fix.fixable_note(findings)
    return head + out + (f"{note}\n" if note else "")


def strict_findings(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Under `--strict` a suppression hint (an allow that silences nothing, names an unknown
    rule or gives no reason) is an error."""
    from dataclasses import replace

    return tuple(
        replace(f, severity=Severity.ERROR) if f.rule == SUPPRESSION_RULE else f for f in findings
    )


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

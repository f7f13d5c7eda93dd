"""What the subcommands share: loading the catalog, reporting errors on stderr, exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from panic_lens.catalog import LoadResult, load_catalog
from panic_lens.catalog.derive import register_derived
from panic_lens.report import ReportError, error_text
from panic_lens.rules.language.spec import RuleFileError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def add_record_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--records",
        action="append",
        default=[],
        metavar="PATH",
        help="extra record file or folder (JSON object files, .jsonl); repeatable",
    )
    parser.add_argument(
        "--no-default-records",
        action="store_true",
        help="do not load the records shipped with panic-lens",
    )


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of rule files (or one rule file) to use beside the shipped rules;"
        " repeatable",
    )


def use_rules(args: argparse.Namespace) -> tuple[RuleFileError, ...]:
    """Register the rules of --rules and of the `rules` setting of the Cargo.toml governing
    each PATH (docs/rule-language.md, "Where rules come from"); the errors of the rule files
    that could not be used (the good ones are registered all the same)."""
    from panic_lens.rules.language.load import use_rule_folders
    from panic_lens.settings import rule_folders

    folders = rule_folders(args.rules, None, getattr(args, "paths", None) or ["."])
    return use_rule_folders(folders).errors


def load_records(args: argparse.Namespace, extra: Sequence[Path] = ()) -> LoadResult:
    """Shipped records (unless --no-default-records), then `extra`, then --records paths."""
    paths = [*extra, *args.records]
    loaded = load_catalog(paths, include_default=not args.no_default_records)
    register_derived(
        loaded.catalog.records, loaded.files_print
    )  # records no rule covers become checks
    return loaded


def print_errors(errors: Iterable[ReportError], stream: TextIO | None = None) -> None:
    out = stream or sys.stderr
    for error in errors:
        print(error_text(error), file=out)

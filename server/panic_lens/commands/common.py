"""What the subcommands share: loading the catalog, reporting errors on stderr, exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from panic_lens.catalog import LoadResult, load_catalog
from panic_lens.catalog.derive import register_derived
from panic_lens.report import ReportError, error_text
from panic_lens.rules.language.spec import RuleFileError
from panic_lens.settings import InUse, in_use

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


def sources(args: argparse.Namespace) -> InUse:
    """The rule folders and record paths in use (`settings.in_use`, the one function every
    command and the editor ask): --rules and --records, then the `rules` and `records` of the
    Cargo.toml governing each PATH of `check` (the current folder for the other commands)."""
    places = getattr(args, "paths", None) or ["."]
    return in_use(getattr(args, "rules", ()), getattr(args, "records", ()), None, places)


def use_rules(args: argparse.Namespace) -> tuple[RuleFileError, ...]:
    """Register the rules in use (`sources`; docs/rule-language.md, "Where rules come from");
    the errors of the rule files that could not be used (the good ones are registered)."""
    from panic_lens.rules.language.load import use_rule_folders

    return use_rule_folders(sources(args).rules).errors


def load_records(args: argparse.Namespace, extra: Sequence[Path] = ()) -> LoadResult:
    """Shipped records (unless --no-default-records), then `extra`, then the records in use
    (`sources`); the rules derived from those no rule covers are registered (after the
    rules in use: a hand-written rule for a record's panic site wins)."""
    paths = [*extra, *sources(args).records]
    loaded = load_catalog(paths, include_default=not args.no_default_records)
    return derive_checks(loaded)


def derive_checks(loaded: LoadResult) -> LoadResult:
    """Register the rules derived from the records no rule in use covers; `loaded` with each
    record's derivation outcome (`LoadResult.outcomes`)."""
    outcomes = register_derived(loaded.catalog.records, loaded.files_print)
    return replace(loaded, outcomes=outcomes)


def print_errors(errors: Iterable[ReportError], stream: TextIO | None = None) -> None:
    out = stream or sys.stderr
    for error in errors:
        print(error_text(error), file=out)

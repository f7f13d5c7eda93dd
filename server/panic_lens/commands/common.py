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


def load_records(args: argparse.Namespace, extra: Sequence[Path] = ()) -> LoadResult:
    """Shipped records (unless --no-default-records), then `extra`, then --records paths."""
    paths = [*extra, *args.records]
    loaded = load_catalog(paths, include_default=not args.no_default_records)
    register_derived(loaded.catalog.records)  # records no rule covers become checks
    return loaded


def print_errors(errors: Iterable[ReportError], stream: TextIO | None = None) -> None:
    out = stream or sys.stderr
    for error in errors:
        print(error_text(error), file=out)

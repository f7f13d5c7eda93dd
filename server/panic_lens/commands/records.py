"""`panic-lens records check`: validate records, show how each half binds, check drift.

Exit 1 when any record is invalid (or a path is missing); drift is reported, not fatal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from panic_lens.catalog import Catalog, load_catalog
from panic_lens.catalog.binding import KNOWLEDGE_WEIGHTS, knowledge_fields, neighbours, score_half
from panic_lens.catalog.coverage import DERIVED, HAND, NONE, coverage_of, rule_origin
from panic_lens.catalog.drift import OK, Drift, check_drift
from panic_lens.catalog.sites import best_matches, site_matches
from panic_lens.commands.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    add_record_options,
    add_rule_options,
    derive_checks,
    load_records,
    print_errors,
    sources,
    use_rules,
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("records", help="work with the records catalog")
    inner = p.add_subparsers(dest="records_command", required=True)
    check = inner.add_parser("check", help="validate records and show their rule binding")
    check.add_argument(
        "record_paths",
        nargs="*",
        metavar="PATH",
        help="record files or folders (default: the records in use: shipped, --records and"
        " Cargo.toml's `records`)",
    )
    check.add_argument(
        "--source",
        metavar="BURN_CHECKOUT",
        help="a burn checkout: report records whose sourceCode moved or changed",
    )
    check.add_argument(
        "--scores",
        action="store_true",
        help="print the panic sites each panic half matches and each knowledge half's word scores",
    )
    add_rule_options(check)
    add_record_options(check)
    check.set_defaults(handler=records_check_command)
    add_derive_parser(inner)


def records_check_command(args: argparse.Namespace) -> int:
    if args.source and not Path(args.source).is_dir():
        print(f"panic-lens records check: --source {args.source}: not a folder")
        return EXIT_USAGE
    rule_errors = use_rules(args)  # first: records bind to the rules in use
    if args.record_paths:  # exactly these records
        loaded = derive_checks(load_catalog(args.record_paths, include_default=False))
    else:
        loaded = load_records(args)
    print_errors(rule_errors)
    catalog = loaded.catalog
    print("\n".join(binding_table(catalog)))
    print("\n".join(binding_summary(catalog)))
    print("\n".join(coverage_lines(catalog, loaded.outcomes)))
    if args.scores:
        print("\n".join(score_lines(catalog)))
    if args.source:
        print("\n".join(drift_report([check_drift(r, Path(args.source)) for r in catalog.records])))
    if loaded.errors:
        print(f"\n{len(loaded.errors)} invalid record(s) or file(s):")
        print_errors(loaded.errors, sys.stdout)
        return EXIT_FINDINGS
    return EXIT_USAGE if rule_errors else EXIT_OK


def binding_table(catalog: Catalog) -> list[str]:
    """One row per record: each half's rules and how it was bound (`site`, `words` or `-`)."""
    rows: list[tuple[str, ...]] = [
        ("record id", "panic half ->", "by", "knowledge half ->", "by", "status", "advisories")
    ]
    for record in catalog.records:
        b = catalog.binding(record.id)
        rows.append(
            (
                record.id,
                ", ".join(b.panic_rules) or "-",
                b.panic_by or "-",
                ", ".join(b.knowledge_rules) or "-",
                b.knowledge_by or "-",
                b.status,
                str(len(catalog.advisories(record.id))),
            )
        )
    return _columns(rows)


def binding_summary(catalog: Catalog) -> list[str]:
    by_status: dict[str, list[str]] = {}
    for record in catalog.records:
        by_status.setdefault(catalog.binding(record.id).status, []).append(record.id)
    lines = [f"\n{len(catalog)} valid record(s)"]
    explain = {
        "split": "halves bound to different rules",
        "partial": "one half bound to no rule",
        "unbound": "no rule at all, neither hand-written nor derived; still used by explain",
    }
    for status, meaning in explain.items():
        ids = by_status.get(status, [])
        if ids:
            lines.append(f"{status} ({meaning}): {', '.join(ids)}")
    return lines


def score_lines(catalog: Catalog) -> list[str]:
    """Why each half bound where it did (see records/README.md): the burn panic sites its panic
    half matches, and its knowledge half's word score per rule."""
    lines = [
        "\nbinding evidence (a panic half binds to the site it matches best; a knowledge half"
        " follows it, or binds to rules scoring >= 2 and >= half of its best):"
    ]
    for record in catalog.records:
        best = set(best_matches(record))
        sites = [m.describe() + ("" if m in best else ", outmatched") for m in site_matches(record)]
        lines.append(f"  {record.id}  panic      sites: {'; '.join(sites) or 'none matched'}")
        scores = score_half(knowledge_fields(record), KNOWLEDGE_WEIGHTS)
        shown = ", ".join(f"{rid} {score:g}" for rid, score in sorted(scores.items()))
        lines.append(f"  {record.id}  knowledge  words: {shown or 'no rule mentioned'}")
        others = sorted(neighbours(record, catalog.binding(record.id).panic_rules))
        if others:
            lines.append(
                f"  {record.id}  knowledge  not bound to {', '.join(others)}: the panic half is"
                " about another panic of its APIs"
            )
    return lines


def drift_report(drifts: Sequence[Drift]) -> list[str]:
    lines = ["\nsource drift:"]
    for d in drifts:
        where = f"{d.file_path}:{d.recorded_line}" if d.file_path else "-"
        if d.status == OK:
            lines.append(f"  {d.record_id}  ok        {where}")
            continue
        now = f"now line {d.line} ({d.offset:+d} lines)" if d.offset is not None else ""
        lines.append(f"  {d.record_id}  {d.status:<9} {where}  {now}  {d.detail}".rstrip())
    drifted = sum(1 for d in drifts if d.status != OK)
    lines.append(f"{drifted} of {len(drifts)} record(s) drifted from the checkout")
    return lines


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


# -- `records derive` and the coverage of `records check` ----------------------------------------


def add_derive_parser(inner: Any) -> None:
    derive = inner.add_parser(
        "derive", help="print the rule derived from a record's panic site (or why there is none)"
    )
    derive.add_argument("record", metavar="RECORD", help="a record id, or a record file")
    derive.add_argument(
        "--records", action="append", default=[], metavar="PATH",
        help="more record files or folders to look the id up in (repeatable)",
    )  # fmt: skip
    derive.add_argument(
        "--even-if-covered", action="store_true",
        help="derive even when a hand-written rule's panic site is the record's",
    )  # fmt: skip
    add_rule_options(derive)
    derive.set_defaults(handler=records_derive_command)


NOT_FOUND = (
    "no record with that id among the shipped records and those in use; name the file that"
    " holds it with --records PATH (or give the file instead of the id)"
)


def records_derive_command(args: argparse.Namespace) -> int:
    from panic_lens.catalog.derive import Covered, Derived, derive_all

    rule_errors = use_rules(args)  # a hand-written rule in use for the site wins
    print_errors(rule_errors)
    given = Path(args.record)
    if given.is_file():
        loaded = load_catalog([given], include_default=False)
    else:  # shipped, --records and Cargo.toml's `records` (commands.common.sources)
        loaded = load_catalog(sources(args).records, include_default=True)
    records = loaded.catalog.records if given.is_file() else [loaded.catalog.get(args.record)]
    found = [r for r in records if r is not None]
    if not found:
        errors = [str(e) for e in loaded.errors]
        if given.is_file():
            reason = "; ".join(errors) or "the file holds no record"
        else:
            reason = "; ".join([*errors, NOT_FOUND])
        print(f"panic-lens records derive: {args.record}: {reason}")
        return EXIT_USAGE
    outcomes = derive_all(found, hand_rules=() if args.even_if_covered else None)
    for record in found:
        outcome = outcomes[record.id]
        if isinstance(outcome, Derived):
            print(f"# derived from record {record.id} (burn {outcome.site})")
            print(outcome.toml, end="")
        elif isinstance(outcome, Covered):
            print(f"# record {record.id}: covered by the rule {', '.join(outcome.rules)}")
        else:
            print(f"# record {record.id}: not derived ({outcome.kind}): {outcome.reason}")
    return EXIT_OK


def coverage_lines(catalog: Catalog, outcomes: Mapping[str, object]) -> list[str]:
    """For each record: the hand-written or derived rule that checks it, or why none does
    (`catalog.coverage`: what every other command says of it too)."""
    lines = ["\nchecks (a hand-written rule whose panic site is the record's wins):"]
    counts = {HAND: 0, DERIVED: 0, NONE: 0}
    for record in catalog.records:
        found = coverage_of(catalog, record.id, outcomes)
        counts[found.kind] += 1
        if found.kind == NONE:
            text = f"{found.why}: {found.detail}" if found.why else "its panic site is no rule's"
        else:
            text = ", ".join(f"{rid} ({rule_origin(rid)})" for rid in found.rules)
            text += f" ({found.detail})" if found.detail else ""
        lines.append(f"    {record.id}  {found.kind:<12}  {text}")
    lines.append(", ".join(f"{n} {what}" for what, n in counts.items()))
    return lines

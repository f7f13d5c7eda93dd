"""`panic-lens explain [FILE|-]`: which records and rules explain a panic message or a log.

Two kinds of answers, kept apart on purpose. A record match: the record's messagePattern
matched a line, so its panic site is this panic. A rule match: the line is a rule's known
runtime text; the records whose *knowledge* half is bound to that rule are shown. A split
record's knowledge is never shown as the answer to its panic half's message.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from panic_lens.catalog import Catalog, Match, Record, RuleMatch
from panic_lens.catalog.coverage import coverage_of
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
from panic_lens.commands.knowledge import knowledge_lines, rule_lines
from panic_lens.rules.meta import rule_ids

MAX_LINES_LISTED = 5


def add_parser(sub: Any) -> None:
    p = sub.add_parser("explain", help="find the records and rules behind a panic message or log")
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="text to explain")
    p.add_argument("--timeout", type=float, default=0.1, help="seconds per pattern match")
    add_rule_options(p)
    add_record_options(p)
    p.set_defaults(handler=explain_command)


def explain_command(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    if text is None:
        return EXIT_USAGE
    rule_errors = use_rules(args)  # the rules in use, as `check` and the editor read them
    loaded = load_records(args)
    print_errors([*rule_errors, *loaded.errors])
    catalog = loaded.catalog
    result = catalog.explain_patterns(text, timeout=args.timeout)
    for rid in result.timed_out:
        print(f"panic-lens explain: record {rid}: pattern timed out, skipped", file=sys.stderr)
    rules = catalog.explain_rules(text)
    print("\n".join(explain_lines(catalog, result.matches, rules, loaded.outcomes)))
    if rule_errors:
        return EXIT_USAGE
    return EXIT_OK if result.matches or rules else EXIT_FINDINGS


def read_input(name: str) -> str | None:
    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as exc:
        print(f"panic-lens explain: {name}: {exc.strerror or exc}", file=sys.stderr)
        return None
    return data.decode("utf-8", errors="replace")


def explain_lines(
    catalog: Catalog,
    matches: list[Match],
    rules: list[RuleMatch],
    outcomes: Mapping[str, object] | None = None,
) -> list[str]:
    """The answer, in blocks separated by a blank line (none before the first)."""
    blocks: list[list[str]] = []
    shown: set[str] = set()  # records whose knowledge has been printed
    covered: set[str] = set()  # rules already explained through a record match
    if not matches:
        blocks.append(["No record's messagePattern matches this text."])
    for rid, group in _by_record(matches).items():
        record = catalog.get(rid)
        if record is not None:
            blocks.append(record_lines(catalog, record, group, shown, outcomes))
            covered.update(catalog.binding(rid).panic_rules)
    for hit in _first_per_rule(rules):
        if hit.rule not in covered:
            blocks.append(rule_match_lines(catalog, hit, shown))
    if not matches and not rules:
        blocks[-1].append(f"No known burn panic text was found either ({runtime_texts_note()}).")
    return [line for i, block in enumerate(blocks) for line in ([""] if i else []) + block]


def runtime_texts_note() -> str:
    """Which rules in use have runtime texts explain knows (`catalog/runtime.py`), counted from
    the registry: what is true whatever rules are in use."""
    from panic_lens.catalog.runtime import RUNTIME_TEXTS

    in_use = rule_ids()
    known = [rid for rid in dict.fromkeys(t.rule for t in RUNTIME_TEXTS) if rid in in_use]
    return f"{len(known)} of the {len(in_use)} rules in use have one: {', '.join(known)}"


def record_lines(
    catalog: Catalog,
    record: Record,
    group: list[Match],
    shown: set[str],
    outcomes: Mapping[str, object] | None = None,
) -> list[str]:
    first = group[0]
    binding = catalog.binding(record.id)
    out = [f"record {record.id}  (line {first.line_no}) {first.line.strip()}"]
    if len(group) > 1:
        more = ", ".join(str(m.line_no) for m in group[1 : MAX_LINES_LISTED + 1])
        out.append(f"  also on line(s) {more}{' ...' if len(group) > MAX_LINES_LISTED + 1 else ''}")
    p = record.panic
    site = f"{p.file_path}:{p.line_number}" if p.file_path else "unknown"
    out.append(f"  panic site: {site}" + (f"  {p.github_url}" if p.github_url else ""))
    out.append(f"  panic half: {coverage_of(catalog, record.id, outcomes).describe()}")
    out += rule_lines(binding.panic_rules)
    if _knowledge_is_about_panic(catalog, record.id):
        shown.add(record.id)
        return out + knowledge_lines(catalog, record)
    out.append(
        f"  knowledge half bound to: {', '.join(binding.knowledge_rules)}: it describes a "
        "different panic, so its solutions are not shown for this message"
    )
    for rule in binding.panic_rules:
        out += rule_knowledge_lines(catalog, rule, shown)
    return out


def rule_match_lines(catalog: Catalog, hit: RuleMatch, shown: set[str]) -> list[str]:
    out = [f"known text of rule {hit.rule}  (line {hit.line_no}) {hit.line.strip()}"]
    out.append(f"  {hit.note}")
    return out + rule_lines((hit.rule,)) + rule_knowledge_lines(catalog, hit.rule, shown)


def rule_knowledge_lines(catalog: Catalog, rule: str, shown: set[str]) -> list[str]:
    """The knowledge of every record whose knowledge half is bound to `rule`, once each."""
    rids = catalog.knowledge_record_ids(rule)
    if not rids:
        return [f"  no record's knowledge half is about {rule}; the rule above says what panics"]
    out: list[str] = []
    for rid in rids:
        record = catalog.get(rid)
        if rid in shown or record is None:
            out.append(f"  knowledge for {rule}: record {rid}, shown above")
            continue
        shown.add(rid)
        out.append(f"  knowledge for {rule} from record {rid} (its knowledge half):")
        out += knowledge_lines(catalog, record)
    return out


def _knowledge_is_about_panic(catalog: Catalog, record_id: str) -> bool:
    """Show a record's knowledge with its own panic unless the halves are about other rules."""
    b = catalog.binding(record_id)
    return not b.knowledge_rules or bool(set(b.knowledge_rules) & set(b.panic_rules))


def _by_record(matches: list[Match]) -> dict[str, list[Match]]:
    groups: dict[str, list[Match]] = {}
    for m in matches:
        groups.setdefault(m.record_id, []).append(m)
    return groups


def _first_per_rule(rules: list[RuleMatch]) -> list[RuleMatch]:
    """One hit per rule: its first message line, else its first panic-location line."""
    seen: dict[str, RuleMatch] = {}
    for hit in sorted(rules, key=lambda h: (h.location, h.line_no)):
        seen.setdefault(hit.rule, hit)
    return sorted(seen.values(), key=lambda h: h.line_no)

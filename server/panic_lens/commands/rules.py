"""`panic-lens rules list | test`: the rules in use, and a rule folder's examples checked.

`rules test` analyses each rule's example file (`<stem>.rs` beside `<stem>.toml`) with the
engine and compares the findings with the file's annotations (docs/rule-language.md, "Examples
and `rules test`"): a line ending in `// expect: <rule-id>[, <rule-id>..]` must be flagged by
each rule named, a line ending in `// ok` by no rule under test. Exit 0 when every expectation
holds, 1 when one does not (or a condition failed to evaluate), 2 for a broken rule file.
Without a PATH it tests the rules in use for the current folder: the shipped ones, `--rules`
and the `rules` of the Cargo.toml tables governing it. Paths under the current folder are
printed relative to it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

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
from panic_lens.report import ReportError, error_dict
from panic_lens.rules.language.spec import RULE_ID, RuleFileError
from panic_lens.rules.meta import SHIPPED, RuleInfo, rules

# `// expect: a-rule, b-rule` or `// ok` closing a line; a note in parentheses may follow
# (`// ok (n is not known here)`).
EXPECT = re.compile(r"//\s*expect:\s*([^()]*?)\s*(?:\(.*\))?\s*$")
# `// todo-expect: a-rule (why)`: a known miss (Semgrep's `todoruleid`): the line should be
# flagged and is not yet; reported, not failed, and a failure once the rule does flag it (then
# the annotation becomes `expect:`).
TODO = re.compile(r"//\s*todo-expect:\s*([^()]*?)\s*(?:\(.*\))?\s*$")
OK = re.compile(r"//\s*ok\s*(?:\(.*\))?\s*$")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("rules", help="list the rules, or test rule files against their examples")
    inner = p.add_subparsers(dest="rules_command", required=True)
    listing = inner.add_parser("list", help="every rule: source, severity, kind, records")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    add_rule_options(listing)
    add_record_options(listing)
    listing.set_defaults(handler=rules_list_command)
    test = inner.add_parser("test", help="check each rule's examples (<stem>.rs) against it")
    test.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="rule folders or rule files (default: the rules in use for the current folder:"
        " the shipped ones, --rules and Cargo.toml's `rules`)",
    )
    test.add_argument("--format", choices=("text", "json"), default="text")
    add_rule_options(test)
    test.set_defaults(handler=rules_test_command)


# ---- rules list ----------------------------------------------------------------------------


def rules_list_command(args: argparse.Namespace) -> int:
    errors = use_rules(args)
    loaded = load_records(args)
    rows = [rule_row(info, loaded.catalog.record_ids_for_rule(info.id)) for info in rules()]
    if args.format == "json":
        listed: list[ReportError] = [*errors, *loaded.errors]
        report = {"rules": rows, "errors": [error_dict(e) for e in listed]}
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        print_errors([*errors, *loaded.errors])
        table: list[tuple[str, ...]] = [("rule", "severity", "kind", "source", "records")]
        for row in rows:
            records = ", ".join(row["records"]) or "-"
            kind = f"hook {row['hook']}" if row["hook"] else row["kind"]
            table.append((row["id"], row["severity"], kind, row["source"], records))
        print("\n".join(_columns(table)))
    return EXIT_USAGE if errors else EXIT_OK


def rule_row(info: RuleInfo, records: tuple[str, ...]) -> dict[str, Any]:
    """What `rules list` says of one rule."""
    spec = info.spec
    hook = spec.hook if spec is not None else None
    if spec is None:  # registered from Python (tests, plug-ins): no rule file
        kind, source = "python", info.module
    else:
        kind = "hook" if hook is not None else "language"
        source = "shipped" if info in SHIPPED else spec.source
    return {
        "id": info.id,
        "title": info.title,
        "severity": info.default_severity.value,
        "kind": kind,
        "hook": hook,
        "source": source,
        "examples": spec.examples if spec is not None else None,
        "records": list(records),
    }


# ---- rules test ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Failure:
    """One expectation that did not hold: `path:line: text`."""

    path: str
    line: int
    rule: str
    kind: str  # "missing", "unexpected", "condition", "annotation", "analysis", "todo"
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}" if self.line else f"{self.path}: {self.text}"


@dataclass
class Outcome:
    """What `rules test` found over a set of rules."""

    rules: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    met: int = 0
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: tuple[RuleFileError, ...] = ()
    todo: list[str] = field(default_factory=list)  # `// todo-expect:` lines still missed

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_USAGE
        return EXIT_FINDINGS if self.failures else EXIT_OK

    def summary(self) -> str:
        broken = f", {len(self.errors)} broken rule file(s)" if self.errors else ""
        todo = f", {len(self.todo)} known miss(es)" if self.todo else ""
        return (
            f"rules test: {len(self.rules)} rule(s), {len(self.examples)} example file(s), "
            f"{self.met} expectation(s) met, {len(self.failures)} failed{todo}{broken}"
        )


@dataclass(frozen=True, slots=True)
class Annotations:
    """An example file's annotated lines (1-based): rule ids expected, lines marked ok."""

    expected: dict[int, tuple[str, ...]]
    ok: frozenset[int]
    bad: tuple[tuple[int, str], ...] = ()  # lines whose `expect:` names no rule id
    todo: dict[int, tuple[str, ...]] = field(default_factory=dict)  # known misses


def read_annotations(text: str) -> Annotations:
    expected: dict[int, tuple[str, ...]] = {}
    ok: set[int] = set()
    bad: list[tuple[int, str]] = []
    todo: dict[int, tuple[str, ...]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if (missed := TODO.search(line)) is not None:
            todo[number] = tuple(i.strip() for i in missed.group(1).split(","))
        elif (found := EXPECT.search(line)) is not None:
            ids = tuple(i.strip() for i in found.group(1).split(","))
            wrong = [i for i in ids if not RULE_ID.fullmatch(i)]
            if wrong or not ids:
                bad.append((number, f"`// expect:` names no rule id: {found.group(1)!r}"))
                continue
            expected[number] = ids
        elif OK.search(line) is not None:
            ok.add(number)
    return Annotations(expected, frozenset(ok), tuple(bad), todo)


def rules_test_command(args: argparse.Namespace) -> int:
    outcome = test_rules(args.paths, args.rules)
    if args.format == "json":
        sys.stdout.write(json.dumps(outcome_json(outcome), indent=2) + "\n")
        return outcome.exit_code
    print_errors(outcome.errors, sys.stdout)
    for failure in outcome.failures:
        print(failure)
    for warning in outcome.warnings:
        print(f"warning: {warning}")
    for todo in outcome.todo:
        print(f"todo: {todo}")
    print(outcome.summary())
    return outcome.exit_code


def test_rules(paths: list[str], rules: list[str] | None = None) -> Outcome:
    """Run the examples of the rules of `paths` (registered as added rules); when `paths` is
    empty, of the rules in use for the current folder: the shipped ones and those of `rules`
    (--rules) and of the Cargo.toml tables that govern it."""
    from panic_lens.rules.language.load import use_rule_folders

    if paths:
        loaded = use_rule_folders(paths)
        tested, errors = loaded.rules, loaded.errors
    else:
        from panic_lens.settings import rule_folders

        loaded = use_rule_folders(rule_folders(rules or [], None, ["."]))
        tested, errors = SHIPPED + loaded.rules, loaded.errors
    outcome = Outcome(errors=tuple(_shown_error(e) for e in errors))
    ids = frozenset(info.id for info in tested)
    for info in tested:
        outcome.rules.append(info.id)
        spec = info.spec
        if spec is None or spec.examples is None:
            source = spec.source if spec is not None else info.module
            missing = shown(Path(source).with_suffix(".rs"))
            outcome.warnings.append(f"rule {info.id} has no examples: no {missing}")
            continue
        run_example(info.id, spec.examples, ids, outcome)
    outcome.failures.sort(key=lambda f: (f.path, f.line))
    return outcome


def shown(path: str | os.PathLike[str]) -> str:
    """`path` as printed: relative to the current folder when it is inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # on another drive
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _shown_error(error: RuleFileError) -> RuleFileError:
    return RuleFileError(shown(error.path), error.line, error.key, error.reason)


def run_example(rule_id: str, path: str, tested: frozenset[str], outcome: Outcome) -> None:
    """Analyse one example file as `check` would and hold it to its annotations (its path
    printed as `shown`)."""
    before = len(outcome.failures)
    outcome.examples.append(shown(path))
    _hold(rule_id, path, tested, outcome)
    outcome.failures[before:] = [replace(f, path=shown(f.path)) for f in outcome.failures[before:]]


def _hold(rule_id: str, path: str, tested: frozenset[str], outcome: Outcome) -> None:
    from panic_lens.catalog import Catalog
    from panic_lens.engine import analyze
    from panic_lens.rules.language.detect import recorded_failures
    from panic_lens.rules.meta import rule_ids

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        outcome.failures.append(Failure(path, 0, rule_id, "analysis", f"cannot read: {exc}"))
        return
    marks = read_annotations(data.decode("utf-8", errors="replace"))
    for line, text in marks.bad:
        outcome.failures.append(Failure(path, line, rule_id, "annotation", text))
    known = set(rule_ids())
    with recorded_failures() as failed:
        analysis = analyze(data, path, catalog=Catalog())  # no records: ids are not compared
    for note in analysis.notes:  # a rule that raised, an unreadable crate: never silent
        outcome.failures.append(Failure(path, 0, rule_id, "analysis", note))
    for rule in sorted(tested):
        for reason in failed.get(rule, ()):  # `path:line: reason`
            row, _, text = reason.removeprefix(f"{path}:").partition(": ")
            text = f"{rule}: condition not evaluated: {text}"
            number = int(row) if row.isdigit() else 0
            outcome.failures.append(Failure(path, number, rule, "condition", text))
    flagged: dict[int, list[tuple[str, str]]] = {}
    for finding in analysis.findings:
        flagged.setdefault(finding.span.start.row + 1, []).append((finding.rule, finding.message))
    for line, ids in sorted(marks.expected.items()):
        found = {rule for rule, _ in flagged.get(line, [])}
        for expected in ids:
            if expected not in known:
                text = f"`// expect: {expected}` names no rule in use"
                outcome.failures.append(Failure(path, line, expected, "annotation", text))
            elif expected in found:
                outcome.met += 1
            else:
                text = f"expected {expected} but nothing was found"
                outcome.failures.append(Failure(path, line, expected, "missing", text))
    for line, ids in sorted(marks.todo.items()):
        found = {rule for rule, _ in flagged.get(line, [])}
        for expected in ids:
            if expected in found:
                text = f"{expected} now flags this line: make `// todo-expect:` an `// expect:`"
                outcome.failures.append(Failure(path, line, expected, "todo", text))
            else:
                outcome.todo.append(f"{shown(path)}:{line}: {expected} (known miss)")
    for line in sorted(marks.ok):
        wrong = [(rule, message) for rule, message in flagged.get(line, []) if rule in tested]
        for rule, message in wrong:
            text = f"{rule} flagged a line marked ok: {message}"
            outcome.failures.append(Failure(path, line, rule, "unexpected", text))
        if not wrong:
            outcome.met += 1


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "rules": outcome.rules,
        "examples": outcome.examples,
        "met": outcome.met,
        "failures": [
            {"path": f.path, "line": f.line, "rule": f.rule, "kind": f.kind, "message": f.text}
            for f in outcome.failures
        ],
        "warnings": outcome.warnings,
        "todo": outcome.todo,
        "errors": [error_dict(e) for e in outcome.errors],
        "summary": outcome.summary(),
    }


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]

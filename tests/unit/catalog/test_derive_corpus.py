"""The deriver measured on the project's corpus (tests/corpus/panics): each record's derived
rule runs over its folder's example.rs. Printed: which records become correct checks (every
`// expect:` line flagged, no `// ok` line), which partially, which not and why. Asserted:
precision, no `// ok` line is ever flagged by a derived rule.

The corpus examples were written before the deriver; they measure it and are never tuned for.
Run with `-s` to see the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from panic_lens.catalog.derive import Derived, derive, shipped_guards
from panic_lens.catalog.load import read_records
from panic_lens.catalog.model import Record
from panic_lens.engine import analyze
from panic_lens.rules import meta
from panic_lens.rules.language import configs

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "panics"


@dataclass(frozen=True, slots=True)
class Row:
    slug: str
    status: str  # full | partial | missed | none
    flagged: int
    expected: int
    false_lines: tuple[int, ...]
    why: str


def _folders() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if (p / "record.json").is_file())


def _record(folder: Path) -> Record:
    (found,) = [r for r in read_records(folder / "record.json") if isinstance(r, Record)]
    return found


def _lines(text: str, pattern: str) -> set[int]:
    return {i + 1 for i, line in enumerate(text.splitlines()) if re.search(pattern, line)}


def measure(folder: Path) -> Row:
    slug = folder.name
    rule_id = f"derived-{slug}"  # the hand-written rule has the slug: annotations map to it
    outcome = derive(_record(folder), shipped_guards(), configs.table(), rule_id=rule_id)
    text = (folder / "example.rs").read_text(encoding="utf-8")
    expected = _lines(text, rf"//\s*expect:\s*{re.escape(slug)}\s*$")
    if not isinstance(outcome, Derived):
        return Row(slug, "none", 0, len(expected), (), f"{outcome.kind}: {outcome.reason}")
    meta.add_rule(meta.info_from_spec(outcome.spec))
    try:
        findings = analyze(text, str(folder / "example.rs")).findings
    finally:
        meta.remove_rule(rule_id)
    got = {f.span.start.row + 1 for f in findings if f.rule == rule_id}
    ok = _lines(text, r"//\s*ok\b")
    hit = got & expected
    status = "full" if hit == expected else ("partial" if hit else "missed")
    missed = sorted(expected - got)
    why = f"lines {missed} not flagged" if missed else ""
    return Row(slug, status, len(hit), len(expected), tuple(sorted(got & ok)), why)


@pytest.mark.skipif(not shipped_guards()["functions"], reason="no guards index shipped")
def test_derived_rules_on_the_corpus_flag_no_ok_line() -> None:
    rows = [measure(folder) for folder in _folders()]
    width = max(len(r.slug) for r in rows)
    print(f"\n{'record':<{width}}  status   flagged  why")
    for r in rows:
        print(f"{r.slug:<{width}}  {r.status:<7}  {r.flagged}/{r.expected:<5}  {r.why[:160]}")
    counts = {
        s: sum(1 for r in rows if r.status == s) for s in ("full", "partial", "missed", "none")
    }
    print(", ".join(f"{n} {s}" for s, n in counts.items()), f"of {len(rows)} records")
    false_positives = {r.slug: r.false_lines for r in rows if r.false_lines}
    assert not false_positives, f"derived rules flagged `// ok` lines: {false_positives}"
    assert len(rows) == len(_folders())


@pytest.mark.skipif(not shipped_guards()["functions"], reason="no guards index shipped")
def test_each_derived_rule_binds_its_own_record_by_site() -> None:
    from panic_lens.catalog.sites import site_rules

    unbound = []
    for folder in _folders():
        record = _record(folder)
        outcome = derive(record, shipped_guards(), configs.table())
        if isinstance(outcome, Derived):
            info = meta.info_from_spec(outcome.spec)
            if site_rules(record, [info]) != (info.id,):
                unbound.append(folder.name)
    assert not unbound, f"derived rules whose panic site does not match their record: {unbound}"

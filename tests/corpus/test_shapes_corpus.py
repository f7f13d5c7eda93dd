"""The code-shapes corpus (tests/corpus/shapes): burn model and training code written the ordinary
way, each module one code shape (activations, shape ops, helpers, fields, loops, scopes, partial
shapes...), annotated line by line before the evaluator that has to handle it was built.

The real engine checks each crate as `check` would. A finding at warning or above is allowed only
on a line `// expect: <rule>` naming its rule. Every plain `// expect:` line must be flagged by
its rule; a line `// expect: <rule> (miss: <reason>)` is a documented known miss and must NOT be
flagged (once it is, the note is out of date: remove it). Likewise `// ok (false positive:
<reason>)` documents a line today's engine flags wrongly: it must be flagged, and the note goes
once it is not. `-s` prints recall per shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from panic_lens.catalog import load_catalog
from panic_lens.catalog.derive import Derived
from panic_lens.catalog.derive.outcomes import derive_all
from panic_lens.model import Severity
from panic_lens.rules.meta import SHIPPED

HERE = Path(__file__).parent / "shapes"
EXPECT = re.compile(r"//\s*expect:\s*([a-z0-9-]+(?:\s*,\s*[a-z0-9-]+)*)\s*(?:\((.*)\))?\s*$")
OK = re.compile(r"//\s*ok\b\s*(?:\((.*)\))?\s*$")
MISS = re.compile(r"^miss:\s*(\S.*)$")
FALSE_POSITIVE = re.compile(r"^false positive:\s*(\S.*)$")
LOUD = {Severity.ERROR, Severity.WARNING}

Site = tuple[str, int]  # (file relative to the corpus folder, 1-based line)


@dataclass(frozen=True)
class Expectation:
    site: Site
    rule: str
    miss: str | None  # the documented reason a line is not flagged yet


@dataclass(frozen=True)
class Annotations:
    expects: tuple[Expectation, ...]
    ok: frozenset[Site]
    false_positives: frozenset[Site]  # `ok` lines today's engine flags, documented


def corpus_files() -> list[Path]:
    return sorted(HERE.rglob("*.rs"))


def shape_of(site_file: str) -> str:
    """A shape is a module file: `model-zoo/src/loops.rs` -> `loops`."""
    return Path(site_file).stem


def read_annotations(files: list[Path]) -> Annotations:
    expects: list[Expectation] = []
    ok: set[Site] = set()
    false_positives: set[Site] = set()
    for file in files:
        rel = file.relative_to(HERE).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if "// expect:" in line and not EXPECT.search(line):
                raise ValueError(f"{rel}:{number}: malformed `// expect:` annotation")
            if match := EXPECT.search(line):
                note = MISS.match((match.group(2) or "").strip())
                for rule in re.split(r"\s*,\s*", match.group(1)):
                    expects.append(Expectation((rel, number), rule, note and note.group(1)))
            elif match := OK.search(line):
                ok.add((rel, number))
                if FALSE_POSITIVE.match((match.group(1) or "").strip()):
                    false_positives.add((rel, number))
    return Annotations(tuple(expects), frozenset(ok), frozenset(false_positives))


@dataclass(frozen=True)
class Loud:
    site: Site
    rule: str
    message: str


@pytest.fixture(scope="module")
def annotations() -> Annotations:
    return read_annotations(corpus_files())


@pytest.fixture(scope="module")
def loud_findings(check_like_cli: Callable[[Path], Any]) -> tuple[Loud, ...]:
    """The findings at warning or above of `check` over the corpus: the shipped rules and
    those derived from the shipped records, as `check` registers them."""
    result = check_like_cli(HERE)
    found = []
    for finding in result.findings:
        if finding.severity in LOUD:
            rel = Path(finding.path or "").relative_to(HERE).as_posix()
            found.append(Loud((rel, finding.span.start.row + 1), finding.rule, finding.message))
    return tuple(found)


def _in_shape(shape: str, sites: Iterator[tuple[Site, str]]) -> list[str]:
    return [f"{s[0]}:{s[1]}: {text}" for s, text in sites if shape_of(s[0]) == shape]


SHAPES = sorted({shape_of(f.relative_to(HERE).as_posix()) for f in corpus_files()})
# Modules that only declare what the shapes use: the crate root, its consts, its own types.
DECLARATIONS = {"lib", "hparams", "lookalike"}


def test_the_corpus_is_annotated_with_shipped_rules(annotations: Annotations) -> None:
    loaded = load_catalog()
    shipped = {rule.id for rule in SHIPPED} | {
        outcome.spec.id
        for outcome in derive_all(loaded.catalog.records, files_print=loaded.files_print).values()
        if isinstance(outcome, Derived)
    }
    unknown = sorted({e.rule for e in annotations.expects} - shipped)
    assert unknown == [], f"`// expect:` names rules that are not shipped: {unknown}"
    with_expect = {shape_of(e.site[0]) for e in annotations.expects}
    with_ok = {shape_of(site[0]) for site in annotations.ok}
    assert with_ok == set(SHAPES) - DECLARATIONS, "every shape module has look-alikes"
    # own_types.rs repeats the shapes with the crate's own types: look-alikes only.
    assert with_expect == set(SHAPES) - DECLARATIONS - {"own_types"}


@pytest.mark.parametrize("shape", [s for s in SHAPES if s not in DECLARATIONS])
def test_shape(shape: str, annotations: Annotations, loud_findings: tuple[Loud, ...]) -> None:
    expected = {(e.site, e.rule) for e in annotations.expects}
    flagged = {(f.site, f.rule) for f in loud_findings}
    known_fp = annotations.false_positives
    unexpected = _in_shape(
        shape,
        ((f.site, f"{f.rule} flagged a line not expecting it: {f.message}")
         for f in loud_findings if (f.site, f.rule) not in expected and f.site not in known_fp),
    )  # fmt: skip
    fixed = _in_shape(
        shape,
        ((site, "not flagged any more: remove the `false positive` note")
         for site in known_fp if site not in {f.site for f in loud_findings}),
    )  # fmt: skip
    missed = _in_shape(
        shape,
        ((e.site, f"expected {e.rule}, nothing found")
         for e in annotations.expects if e.miss is None and (e.site, e.rule) not in flagged),
    )  # fmt: skip
    stale = _in_shape(
        shape,
        ((e.site, f"{e.rule} is found now: remove the note (miss: {e.miss})")
         for e in annotations.expects if e.miss is not None and (e.site, e.rule) in flagged),
    )  # fmt: skip
    problems = unexpected + missed + stale + fixed
    assert not problems, "\n".join(problems)


def test_recall_per_shape(annotations: Annotations, loud_findings: tuple[Loud, ...]) -> None:
    """Prints the table (`-s`); asserts it adds up to the annotations."""
    flagged = {(f.site, f.rule) for f in loud_findings}
    rows = []
    for shape in SHAPES:
        expects = [e for e in annotations.expects if shape_of(e.site[0]) == shape]
        if shape in DECLARATIONS:
            continue
        found = sum((e.site, e.rule) in flagged for e in expects)
        misses = sum(e.miss is not None for e in expects)
        oks = sum(shape_of(site[0]) == shape for site in annotations.ok)
        fps = sum(shape_of(site[0]) == shape for site in annotations.false_positives)
        rows.append((shape, len(expects), found, misses, oks, fps))
    total = sum(r[1] for r in rows)
    assert total == len(annotations.expects)
    print("\n| shape | expect | found | known misses | recall | ok lines | known false positives |")
    print("|---|---|---|---|---|---|---|")
    for shape, n, found, misses, oks, fps in rows:
        recall = f"{found / n:.2f}" if n else "-"
        print(f"| {shape} | {n} | {found} | {misses} | {recall} | {oks} | {fps} |")
    n, found, misses, oks, fps = (sum(r[i] for r in rows) for i in range(1, 6))
    print(f"| all | {n} | {found} | {misses} | {found / n:.2f} | {oks} | {fps} |")

"""The project's own records of burn panics (tests/corpus/panics, written from burn's source,
and the copies shipped in records/): they load without errors, are well-formed (id, tag, line
range, a pattern that matches the printed text, an annotated example), each panic half binds by
its site to the shipped rule written for that panic (its id is the record's slug), or to none
(binding by site, not by the words a record mentions), and with a burn checkout at the tag
(BURN_CHECKOUT) every quote is burn's text at its line range."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import regex
from records_factory import REPO

from panic_lens.catalog import load_catalog
from panic_lens.catalog.derive import Derived, register_derived
from panic_lens.rules.meta import derived_rules, rules, set_derived_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "panics"
FOLDERS = sorted(p for p in CORPUS.iterdir() if p.is_dir())
SHIPPED = REPO / "records"
TAG = "v0.22.0-pre.2"
BURN = Path(os.environ.get("BURN_CHECKOUT", REPO.parent / "burn-checkout"))


def _record(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["record"]
    return data


def _shipped_project_records() -> dict[str, Path]:
    """The project's records in records/, by slug (the seeds are not the project's)."""
    out = {}
    for path in sorted(SHIPPED.iterdir()):
        if path.suffix == ".json":
            rec = _record(path)
            if rec.get("writtenBy") == "panic-lens":
                out[rec["slug"]] = path
    return out


def test_every_corpus_record_loads() -> None:
    loaded = load_catalog([CORPUS], include_default=False)
    assert loaded.errors == ()
    assert len(loaded.catalog) == len(FOLDERS) >= 40


def test_each_corpus_panic_half_binds_only_to_the_rule_of_its_panic() -> None:
    """To the hand-written rule of its panic (its id is the slug), else to the rule derived
    from the record itself, else to nothing."""
    loaded = load_catalog([CORPUS], include_default=False)
    before = derived_rules()
    outcomes = register_derived(loaded.catalog.records, loaded.files_print)
    try:
        hand = {rule.id for rule in rules()} - {rule.id for rule in derived_rules()}
        for folder in FOLDERS:
            rid = json.loads((folder / "record.json").read_text())["record"]["id"]
            binding, outcome = loaded.catalog.binding(rid), outcomes[rid]
            if folder.name in hand:
                expected: tuple[str, ...] = (folder.name,)
            else:
                expected = (outcome.spec.id,) if isinstance(outcome, Derived) else ()
            assert binding.panic_rules == expected, folder.name
            if expected:
                assert binding.panic_by == "site" and binding.knowledge_rules == expected
    finally:
        set_derived_rules(before)


def test_every_corpus_record_is_marked_and_its_example_annotated() -> None:
    for folder in FOLDERS:
        record = json.loads((folder / "record.json").read_text())["record"]
        assert record["writtenBy"] == "panic-lens", folder.name
        assert record["slug"] == folder.name
        example = (folder / "example.rs").read_text()
        assert f"// expect: {folder.name}" in example and "// ok" in example, folder.name
        regex.compile(record["messagePattern"])


def test_every_shipped_record_loads_and_its_pattern_compiles_on_one_line() -> None:
    loaded = load_catalog([SHIPPED], include_default=False)
    assert loaded.errors == ()
    assert len(loaded.catalog) >= 70
    for record in loaded.catalog.records:
        pattern = record.panic.message_pattern
        regex.compile(pattern)
        # explain matches a pattern against one line of a log at a time
        assert "\n" not in pattern and "\\n" not in pattern, record.id


# The panic site a shipped record shares with its corpus copy (the shipped pattern may be the
# corpus pattern's one-line form, and a shipped text may carry a later correction).
SITE_FIELDS = ("id", "slug", "errorMessage", "filePath", "lineNumber", "sourceCode",
               "sourceCodeStart", "sourceCodeEnd", "githubUrl", "analyzedSha")  # fmt: skip


def test_each_shipped_project_record_is_a_corpus_record() -> None:
    shipped = _shipped_project_records()
    assert len(shipped) >= 60
    for slug, path in shipped.items():
        rec, copy = _record(path), _record(CORPUS / slug / "record.json")
        assert {f: rec[f] for f in SITE_FIELDS} == {f: copy[f] for f in SITE_FIELDS}, slug
        assert path.name.split("_", 1)[1] == f"{rec['id']}.json"


# Sample values for a format string's `{}` holes: a number, a shape, an operation's name.
SAMPLES = ("7", "[2, 3]", "stft")


def _printed(message: str) -> list[str]:
    """What the panic prints for sample values: the holes filled, and for `assert_eq!` the
    `left`/`right` lines Rust adds."""
    texts = [re.sub(r"\{[^{}]*\}", value, message) for value in SAMPLES]
    if message.startswith("assertion `left == right` failed"):
        texts = [t + "\n  left: 7\n right: 0" for t in texts]
    return texts


def test_every_corpus_record_is_well_formed() -> None:
    for folder in FOLDERS:
        rec = _record(folder / "record.json")
        slug = folder.name
        assert rec["id"] == hashlib.sha256(slug.encode()).hexdigest()[:16], slug
        assert rec["schemaVersion"] == 2 and rec["repo"] == "tracel-ai/burn", slug
        start, end, line = rec["sourceCodeStart"], rec["sourceCodeEnd"], rec["lineNumber"]
        assert start <= line <= end, slug
        assert len(rec["sourceCode"].rstrip("\n").split("\n")) <= end - start + 1, slug
        url = f"https://github.com/tracel-ai/burn/blob/{TAG}/{rec['filePath']}#L{line}"
        assert rec["githubUrl"] == url, slug
        pattern = regex.compile(rec["messagePattern"])
        assert any(pattern.search(text) for text in _printed(rec["errorMessage"])), slug
        example = (folder / "example.rs").read_text(encoding="utf-8")
        oks = re.findall(r"//\s*ok\b", example)
        expects = re.findall(rf"//\s*expect:\s*{re.escape(slug)}\s*$", example, re.M)
        assert len(oks) >= 3 and expects, slug


@pytest.mark.skipif(not (BURN / "crates").is_dir(), reason="no burn checkout (set BURN_CHECKOUT)")
def test_every_quote_is_burns_text_at_its_lines() -> None:
    """Each record's sourceCode is burn's source at sourceCodeStart..sourceCodeEnd, verbatim
    (the checkout must be at the records' tag)."""
    quotes = {folder.name: _record(folder / "record.json") for folder in FOLDERS}
    quotes.update({slug: _record(path) for slug, path in _shipped_project_records().items()})
    for slug, rec in quotes.items():
        lines = (BURN / rec["filePath"]).read_text(encoding="utf-8").split("\n")
        quoted = "\n".join(lines[rec["sourceCodeStart"] - 1 : rec["sourceCodeEnd"]])
        assert quoted.rstrip("\n") == rec["sourceCode"].rstrip("\n"), slug

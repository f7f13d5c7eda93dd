"""The project's own records of burn panics (tests/corpus/panics, written from burn's source):
they load without errors, and each panic half binds by its site to the shipped rule written
for that panic (its id is the record's slug), or to none (binding by site, not by the words a
record mentions)."""

from __future__ import annotations

import json
from pathlib import Path

import regex

from panic_lens.catalog import load_catalog
from panic_lens.rules.meta import rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "panics"
FOLDERS = sorted(p for p in CORPUS.iterdir() if p.is_dir())


def test_every_corpus_record_loads() -> None:
    loaded = load_catalog([CORPUS], include_default=False)
    assert loaded.errors == ()
    assert len(loaded.catalog) == len(FOLDERS) >= 40


def test_each_corpus_panic_half_binds_only_to_the_rule_of_its_panic() -> None:
    catalog = load_catalog([CORPUS], include_default=False).catalog
    shipped = {rule.id for rule in rules()}
    for folder in FOLDERS:
        rid = json.loads((folder / "record.json").read_text())["record"]["id"]
        binding = catalog.binding(rid)
        expected = (folder.name,) if folder.name in shipped else ()
        assert binding.panic_rules == expected, folder.name
        if expected:
            assert binding.panic_by == "site" and binding.knowledge_rules == expected


def test_every_corpus_record_is_marked_and_its_example_annotated() -> None:
    for folder in FOLDERS:
        record = json.loads((folder / "record.json").read_text())["record"]
        assert record["writtenBy"] == "panic-lens", folder.name
        assert record["slug"] == folder.name
        example = (folder / "example.rs").read_text()
        assert f"// expect: {folder.name}" in example and "// ok" in example, folder.name
        regex.compile(record["messagePattern"])

"""The project's own records of burn panics (tests/corpus/panics, written from burn's source):
they load without errors, and none of their panic halves binds to a shipped rule, since none
is about a shipped rule's panic site (binding by site, not by the words a record mentions)."""

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


def test_no_corpus_panic_half_binds_to_a_shipped_rule() -> None:
    catalog = load_catalog([CORPUS], include_default=False).catalog
    ids = [json.loads((f / "record.json").read_text())["record"]["id"] for f in FOLDERS]
    bound = {i: catalog.binding(i).panic_rules for i in ids}
    assert {i: r for i, r in bound.items() if r} == {}
    for rule in rules():
        cited = set(catalog.record_ids_for_rule(rule.id)) & set(ids)
        # a knowledge half may still bind by words (ctc-blank-out-of-range mentions ctc_loss
        # throughout); no panic half may
        assert all(catalog.binding(i).knowledge_by == "words" for i in cited), rule.id


def test_every_corpus_record_is_marked_and_its_example_annotated() -> None:
    for folder in FOLDERS:
        record = json.loads((folder / "record.json").read_text())["record"]
        assert record["writtenBy"] == "panic-lens", folder.name
        assert record["slug"] == folder.name
        example = (folder / "example.rs").read_text()
        assert f"// expect: {folder.name}" in example and "// ok" in example, folder.name
        regex.compile(record["messagePattern"])

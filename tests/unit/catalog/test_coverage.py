"""catalog/coverage.py: what checks a record, read from its binding to the registry, is what the
deriver's outcome says (the editor's records files read the outcome, the commands the binding):
over the corpus of records written from burn's source (the shipped ones among them), with the rules
derived from them registered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from records_factory import envelope
from records_factory import record as record_data

from panic_lens.catalog import load_catalog
from panic_lens.catalog.coverage import DERIVED, HAND, NONE, coverage_of, from_outcome
from panic_lens.catalog.derive import register_derived
from panic_lens.rules import meta

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "panics"


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    derived = meta.derived_rules()
    yield
    meta.set_derived_rules(derived)


def test_the_binding_and_the_derivation_say_the_same_for_every_record(tmp_path: Path) -> None:
    # every corpus record is checked (hand-written or derived): a record of a panic burn's
    # source does not hold is the one that nothing checks
    (tmp_path / "unknown.json").write_text(
        json.dumps(envelope(record_data("0fab1e5d0fab1e5d", filePath="crates/burn-nn/src/lib.rs")))
    )
    paths = [*sorted(CORPUS.glob("*/record.json")), tmp_path / "unknown.json"]
    loaded = load_catalog(paths, include_default=False)
    assert not loaded.errors
    catalog = loaded.catalog
    outcomes = register_derived(catalog.records)
    kinds = {HAND: 0, DERIVED: 0, NONE: 0}
    for record in catalog.records:
        said = coverage_of(catalog, record.id, outcomes)
        kinds[said.kind] += 1
        expected = from_outcome(outcomes[record.id])
        assert (said.kind, said.rules, said.why) == (expected.kind, expected.rules, expected.why)
        if said.kind == NONE:  # "no rule at all": no rule's site is the record's
            assert catalog.binding(record.id).panic_rules == ()
            assert said.describe().startswith(f"no rule checks it ({said.why}): ")
    assert kinds[HAND] and kinds[DERIVED] and kinds[NONE]  # all three are exercised

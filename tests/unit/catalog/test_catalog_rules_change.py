"""A catalog made before rule folders were loaded (the editor's, after a rule file changed)
binds its records to the rules in use at the time it is asked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from records_factory import record

from panic_lens.catalog import load_catalog
from panic_lens.rules import meta
from panic_lens.rules.language.load import use_rule_folders

RULES = Path(__file__).parents[1] / "commands" / "data" / "rules_pass"
RULE_ID = "max-pool-zero-stride"


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    before = meta.added_rules()
    yield
    meta.set_added_rules(before)


def test_bindings_follow_the_rules_in_use(write_records) -> None:
    path = write_records(
        "r.json",
        record(
            "r",
            errorMessage="stride must be positive",
            messagePattern="stride must be positive",
            filePath="crates/burn-tensor/src/tensor/module.rs",
            sourceCode='assert!(stride > 0, "stride must be positive");',
        ),
    )
    catalog = load_catalog([path], include_default=False).catalog
    assert catalog.record_ids_for_rule(RULE_ID) == ()
    use_rule_folders([RULES])
    assert catalog.record_ids_for_rule(RULE_ID) == ("r",)
    assert catalog.binding("r").panic_rules == (RULE_ID,)
    use_rule_folders([])
    assert catalog.record_ids_for_rule(RULE_ID) == ()

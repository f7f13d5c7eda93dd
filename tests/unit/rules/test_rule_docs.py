"""Every shipped rule has its docs page, its examples and its line in the README's rule table;
the table lists nothing else (it cannot go stale beside the rule files)."""

from __future__ import annotations

import re
from pathlib import Path

from panic_lens.rules.meta import SHIPPED

ROOT = Path(__file__).resolve().parents[3]


def test_readme_table_lists_exactly_the_shipped_rules() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| \[`([a-z0-9-]+)`\]\(docs/rules/", readme, flags=re.M)
    assert listed == [r.id for r in SHIPPED]
    for rule in SHIPPED:
        assert f"| {rule.title} | {rule.default_severity.value} |" in readme, rule.id


def test_every_shipped_rule_has_a_page_and_examples() -> None:
    for rule in SHIPPED:
        assert (ROOT / "docs" / "rules" / f"{rule.id}.md").is_file(), rule.id
        assert rule.spec is not None
        if rule.spec.hook is None:  # the hook rules' examples are their golden crates
            assert rule.spec.examples is not None, rule.id

"""The rule that docs/rule-language.md opens with works as the page says: a user who copies it
and its examples gets `rules test` passing."""

from __future__ import annotations

import re
from pathlib import Path

from panic_lens.commands import rules as rules_command
from panic_lens.rules import meta

DOC = Path(__file__).resolve().parents[3] / "docs" / "rule-language.md"


def test_the_pages_first_rule_passes_its_examples(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    rule = re.search(r"```toml\n(.*?)```", text, re.S)
    example = re.search(r"```rust\n(.*?)```", text, re.S)
    assert rule is not None and example is not None
    folder = tmp_path / "my-rules"
    folder.mkdir()
    name = re.search(r"^# my-rules/(\S+)\.toml$", rule.group(1), re.M)
    assert name is not None
    (folder / f"{name.group(1)}.toml").write_text(rule.group(1))
    (folder / f"{name.group(1)}.rs").write_text(example.group(1))
    try:
        outcome = rules_command.test_rules([str(folder)])
    finally:
        meta.set_added_rules(())
    assert outcome.errors == () and outcome.failures == [], outcome.failures
    assert outcome.met >= 3

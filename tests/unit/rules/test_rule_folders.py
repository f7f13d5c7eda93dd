"""rules/language/load.use_rule_folders: the registry's rules from files, replaced as a whole."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from panic_lens.model import Severity
from panic_lens.rules import meta
from panic_lens.rules.language.load import use_rule_folders

RULES = Path(__file__).parents[1] / "commands" / "data" / "rules_pass"


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    before = meta.added_rules()
    yield
    meta.set_added_rules(before)


def test_loading_the_same_rules_again_keeps_the_registry_generation() -> None:
    use_rule_folders([RULES])
    before = meta.generation()
    assert [r.id for r in use_rule_folders([RULES]).rules] == ["max-pool-zero-stride"]
    assert meta.generation() == before
    use_rule_folders([])
    assert meta.added_rules() == ()
    assert meta.generation() != before


def test_a_changed_rule_file_replaces_its_rule(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(RULES, tmp_path / "rules"))
    use_rule_folders([folder])
    first = meta.rule_by_id("max-pool-zero-stride")
    rule = folder / "max-pool-zero-stride.toml"
    rule.write_text(rule.read_text().replace('severity = "warning"', 'severity = "hint"'))
    use_rule_folders([folder])
    second = meta.rule_by_id("max-pool-zero-stride")
    assert first is not None and second is not None
    assert second.default_severity == Severity.HINT
    assert first.fingerprint != second.fingerprint  # what the cache keys on


def test_rules_registered_from_python_stay() -> None:
    python_rule = meta.RuleInfo(
        id="from-python", title="t", summary="s", apis=(), default_severity=Severity.HINT,
        module=__name__,
    )  # fmt: skip
    meta.add_rule(python_rule)
    use_rule_folders([RULES])
    assert [r.id for r in meta.added_rules()] == ["from-python", "max-pool-zero-stride"]
    use_rule_folders([])
    assert meta.added_rules() == (python_rule,)


def test_an_id_taken_by_a_python_rule_is_an_error_on_the_id_line() -> None:
    clash = meta.RuleInfo(
        id="max-pool-zero-stride", title="t", summary="s", apis=(),
        default_severity=Severity.HINT, module=__name__,
    )  # fmt: skip
    meta.add_rule(clash)
    loaded = use_rule_folders([RULES])
    assert loaded.rules == ()
    [error] = loaded.errors
    assert (error.line, error.key) == (2, "id")
    assert meta.added_rules() == (clash,)

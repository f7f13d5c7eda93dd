"""Fixtures of the deriver's tests: the guards index of the small burn-like tree
(tests/unit/derive_tree.py), its config table, and rules registered during a test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from derive_tree import TABLE, write_tree

from panic_lens.rules import meta
from panic_lens.rules.language import api, configs
from panic_lens.rust.burn_guards import build_guards


@pytest.fixture(scope="session")
def guards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("burn")
    write_tree(root)
    return build_guards(root)


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> configs.ConfigTable:
    loaded = configs.table_from_data(TABLE, "test table")
    monkeypatch.setattr(configs, "table", lambda: loaded)
    return loaded


@pytest.fixture
def registered() -> Iterator[list[str]]:
    ids: list[str] = []
    yield ids
    for rule_id in ids:
        meta.remove_rule(rule_id)


@pytest.fixture
def checked_against(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, Any]], None]:
    """Rules registered in the test are checked against the API of the guards index given
    (the one they were derived from), not the shipped one."""

    def use(guards: dict[str, Any]) -> None:
        monkeypatch.setattr(api, "known_api", lambda: api.api_of(guards))

    return use

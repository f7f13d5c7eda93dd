"""Suite-wide fixtures: every test gets its own cache folder, never the user's; `check_like_cli`
runs the engine over folders with the rules `check` registers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _private_cache_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """PANIC_LENS_CACHE_DIR points at a fresh tmp folder (subprocesses inherit it)."""
    folder = tmp_path_factory.mktemp("panic-lens-cache")
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(folder))
    return folder


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs `-n auto --dist loadgroup`), the real-editor tests
    run one after another on one worker: they share a cache folder and each editor needs a
    core of its own to answer in time."""
    editors = Path(__file__).parent / "editors"
    for item in items:
        if editors in Path(item.fspath).parents:
            item.add_marker(pytest.mark.xdist_group("editors"))


def _check_like_cli(root: Path) -> Any:
    """`engine.check_paths` over `root` with the shipped records loaded and the rules derived
    from them registered, as `check` does (commands.common.load_records); the registry's
    derived rules are restored after."""
    from panic_lens.catalog import load_catalog
    from panic_lens.catalog.derive import register_derived
    from panic_lens.engine import check_paths
    from panic_lens.rules.meta import derived_rules, set_derived_rules

    before = derived_rules()
    loaded = load_catalog()
    register_derived(loaded.catalog.records, loaded.files_print)
    try:
        result = check_paths([root], catalog=loaded.catalog)
    finally:
        set_derived_rules(before)
    assert not result.errors, result.errors
    return result


@pytest.fixture(scope="session")
def check_like_cli() -> Callable[[Path], Any]:
    return _check_like_cli

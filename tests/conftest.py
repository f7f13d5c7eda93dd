"""Suite-wide fixture: every test gets its own cache folder, never the user's."""

from __future__ import annotations

from pathlib import Path

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

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

"""Fixtures for the real-editor tests: a private copy of the example crate, the artifacts folder."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from editor_support import EXAMPLE, ROOT


@pytest.fixture
def burn_app(tmp_path: Path) -> Iterator[Path]:
    """A private copy of examples/burn-app, so quick fixes never touch the repository.

    It is a git repository, as a user's crate is: eglot (project.el) finds its root that way.
    """
    copy = tmp_path / "burn-app"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("target"))
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    yield copy


@pytest.fixture
def artifacts() -> Path:
    """Gitignored folder for screenshots and logs a person can inspect after a run."""
    folder = ROOT / "artifacts" / "editors"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def _editor_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("panic-lens-editor-cache")


@pytest.fixture(autouse=True)
def _private_cache_dir(_editor_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One cache folder for every editor these tests start (overriding the suite's folder per
    test): an editor's second start answers `initialize` from the stored answer and gets its
    first diagnostics through the quick start (panic_lens/quickstart.py), as a user's does."""
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(_editor_cache_dir))
    return _editor_cache_dir

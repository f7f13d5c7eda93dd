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

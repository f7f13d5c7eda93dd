"""Shared fixtures for the benchmark and fast-path tests: the repo root on sys.path, crates."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the `bench` package lives at the repo root

MANIFEST = """[package]
name = "{name}"
version = "0.1.0"

[dependencies]
burn = {{ version = "0.22.0", features = [{features}] }}
"""


@pytest.fixture(autouse=True)
def _no_derived_rules_of_other_tests() -> Iterator[None]:
    """These tests count the findings and candidates of the shipped hand-written rules and
    their own: rules derived from records that another test of the process registered (an
    in-process `check` registers the shipped records' derived rules) are put aside."""
    from panic_lens.rules import meta

    saved = meta.derived_rules()
    meta.set_derived_rules(())
    yield
    meta.set_derived_rules(saved)


@pytest.fixture
def make_crate(tmp_path: Path) -> Callable[..., Path]:
    """make_crate("app", {"src/lib.rs": "..."}, features='"wgpu", "train"') -> crate folder."""

    def make(name: str, files: dict[str, str], features: str = '"wgpu", "train", "rl"') -> Path:
        root = tmp_path / name
        (root / "src").mkdir(parents=True, exist_ok=True)
        (root / "Cargo.toml").write_text(MANIFEST.format(name=name, features=features))
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        return root

    return make


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the user's cache folder from a test."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(folder))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    return folder

"""`commands.check.manifest_records`: the `records` setting is read from the crate's and its
workspace's `panic-lens` tables, and manifests that cannot set it are not parsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens.commands import check


def crate(root: Path, manifest: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text("pub fn f() {}\n")
    (root / "Cargo.toml").write_text(manifest)
    return root


PACKAGE = '[package]\nname = "c"\nversion = "0.1.0"\n'


def test_the_crates_own_table(tmp_path: Path) -> None:
    app = crate(tmp_path / "app", PACKAGE + '\n[package.metadata.panic-lens]\nrecords = ["x"]\n')
    assert check.manifest_records([str(app)]) == [app / "x"]


def test_the_workspace_roots_table_above_the_crate(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n\n[workspace.metadata.panic-lens]\nrecords = ["ws"]\n'
    )
    app = crate(tmp_path / "app", PACKAGE)
    assert check.manifest_records([str(app / "src")]) == [app / "ws"]


def test_a_key_spelled_with_an_escape_is_read(tmp_path: Path) -> None:
    table = '\n[package.metadata."panic\\u002dlens"]\nrecords = ["esc"]\n'
    app = crate(tmp_path / "app", PACKAGE + table)
    assert check.manifest_records([str(app)]) == [app / "esc"]


def test_manifests_without_the_table_are_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from panic_lens.rust import crate as rust_crate

    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["app"]\n')
    app = crate(tmp_path / "app", PACKAGE + '\n[dependencies]\nburn = "0.22"\n')

    def refuse(path: object) -> object:
        raise AssertionError(f"parsed for {path}")

    monkeypatch.setattr(rust_crate, "crate_context", refuse)
    assert check.manifest_records([str(app), str(tmp_path / "elsewhere.rs")]) == []

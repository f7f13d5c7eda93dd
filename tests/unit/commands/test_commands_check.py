"""`settings.in_use`: the one answer every command and the editor get to "which rule folders and
record files": the explicit ones, then the `rules` and `records` of the crate's and its
workspace's `panic-lens` tables, each relative to the Cargo.toml it is written in."""

from __future__ import annotations

from pathlib import Path

from panic_lens.settings import in_use


def crate(root: Path, manifest: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text("pub fn f() {}\n")
    (root / "Cargo.toml").write_text(manifest)
    return root


PACKAGE = '[package]\nname = "c"\nversion = "0.1.0"\n'


def test_the_crates_own_table(tmp_path: Path) -> None:
    table = '\n[package.metadata.panic-lens]\nrecords = ["x"]\nrules = "r"\n'
    app = crate(tmp_path / "app", PACKAGE + table)
    found = in_use([], [], None, [str(app)])
    assert found.records == (app / "x",) and found.rules == (app / "r",)


def test_both_tables_each_relative_to_its_own_manifest(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n\n[workspace.metadata.panic-lens]\n'
        'records = ["ws-records"]\nrules = ["ws-rules"]\n'
    )
    table = '\n[package.metadata.panic-lens]\nrecords = ["mine"]\nrules = ["my-rules"]\n'
    app = crate(tmp_path / "app", PACKAGE + table)
    found = in_use([], [], None, [str(app / "src")])
    # the workspace's paths are the workspace root's, not the member's (`app/ws-records`)
    assert found.records == (tmp_path / "ws-records", app / "mine")
    assert found.rules == (tmp_path / "ws-rules", app / "my-rules")


def test_explicit_paths_come_first_and_each_path_once(tmp_path: Path) -> None:
    app = crate(tmp_path / "app", PACKAGE + '\n[package.metadata.panic-lens]\nrecords = ["x"]\n')
    found = in_use(["r"], ["x", str(app / "x")], app, [str(app), str(app / "src")])
    assert found.records == (app / "x",)
    assert found.rules == (app / "r",)


def test_a_key_spelled_with_an_escape_is_read(tmp_path: Path) -> None:
    table = '\n[package.metadata."panic\\u002dlens"]\nrecords = ["esc"]\n'
    app = crate(tmp_path / "app", PACKAGE + table)
    assert in_use([], [], None, [str(app)]).records == (app / "esc",)


def test_a_bad_value_and_no_manifest_add_nothing(tmp_path: Path) -> None:
    app = crate(tmp_path / "app", PACKAGE + "\n[package.metadata.panic-lens]\nrecords = [1]\n")
    assert in_use([], [], None, [str(app)]).records == ()
    assert in_use([], [], None, [str(tmp_path / "elsewhere.rs")]).records == ()

"""settings.py: the `rules` setting and where rule folders come from."""

from __future__ import annotations

from pathlib import Path

from panic_lens.settings import parse_settings, rule_folders


def test_rules_takes_a_list_of_paths_or_one_path() -> None:
    assert parse_settings({"rules": ["a", "b"]}).settings.rules == ("a", "b")
    assert parse_settings({"rules": "a"}).settings.rules == ("a",)
    bad = parse_settings({"rules": [1]})
    assert bad.settings.rules == ()
    assert bad.errors == ("settings.rules: expected a list of paths, got [1]; using the default",)


def test_explicit_folders_are_taken_from_the_root(tmp_path: Path) -> None:
    found = rule_folders(["mine", str(tmp_path / "abs")], tmp_path)
    assert found == [tmp_path / "mine", tmp_path / "abs"]


def test_manifest_folders_are_relative_to_the_manifest_that_names_them(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "app" / "src").mkdir(parents=True)
    (ws / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n[workspace.metadata.panic-lens]\nrules = ["shared"]\n'
    )
    (ws / "app" / "Cargo.toml").write_text(
        '[package]\nname = "app"\nversion = "0.1.0"\n'
        '[package.metadata.panic-lens]\nrules = ["own", "../shared"]\n'
    )
    found = rule_folders(["cli"], None, [ws / "app" / "src", ws / "app"])
    # each folder once, however many places name it; workspace table first, then the package's
    assert found == [Path("cli"), ws / "shared", ws / "app" / "own"]


def test_a_bad_rules_value_in_a_manifest_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "app"\nversion = "0.1.0"\n[package.metadata.panic-lens]\nrules = 3\n'
    )
    assert rule_folders([], None, [tmp_path]) == []

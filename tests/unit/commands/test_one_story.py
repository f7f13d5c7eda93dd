"""Every command tells the same story of a record: `check`, `rules list`, `records check`,
`records derive` and `explain` read the same rule and record folders (the flags and both of
Cargo.toml's `panic-lens` tables, `settings.in_use`) and say the same binding for each record:
the hand-written rule that covers its panic site, else the rule derived from it, else none.

The scenario (issue 37): a hand-written rule in `my-rules` and a record of the same panic site
in `myrecords`, both named in Cargo.toml, the commands run from the crate's folder. Before,
`records check` called the record "unbound" and its own checks section "derived", `explain`
read neither folder, and `rules list` did not read Cargo.toml's `records`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from panic_lens.cli import main
from panic_lens.rules import meta

DATA = Path(__file__).parent / "data" / "one_story"
RECORD = "a5a5a5a5a5a5a5a5"  # burn's dim-index bounds panic (tests/corpus/panics)
RULE = "swap-dims-bounds"  # my-rules: a hand-written rule for that panic site
LOG = (
    "thread 'main' panicked at src/main.rs:2:32:\n"
    "=== Tensor Operation Error ===\n"
    "  Operation: 'Swap Dims'\n"
    "  Reason:\n"
    "    1. BoundsError: dimension 5 out of bounds: 0..3\n"
)
PACKAGE = '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    """The registry is one per process: each test leaves it as it found it."""
    added, derived = meta.added_rules(), meta.derived_rules()
    yield
    meta.set_added_rules(added)
    meta.set_derived_rules(derived)


def crate(tmp_path: Path, layout: str, monkeypatch: pytest.MonkeyPatch, rules: bool = True) -> Path:
    """The crate, the current folder; `layout`: both keys in the package's table, or the
    records in the workspace's table and the rules in the package's."""
    root = tmp_path / "ws"
    app = Path(shutil.copytree(DATA, root / "app"))
    table = "\n[package.metadata.panic-lens]\n" + ('rules = ["my-rules"]\n' if rules else "")
    if layout == "package":
        (app / "Cargo.toml").write_text(PACKAGE + table + 'records = ["myrecords"]\n')
    else:
        (root / "Cargo.toml").write_text(
            '[workspace]\nmembers = ["app"]\n\n[workspace.metadata.panic-lens]\n'
            'records = ["app/myrecords"]\n'
        )
        (app / "Cargo.toml").write_text(PACKAGE + table)
    (tmp_path / "log.txt").write_text(LOG)
    monkeypatch.chdir(app)
    return app


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def records_check_row(out: str) -> tuple[list[str], str]:
    """The record's binding row (its cells) and its line in the checks section."""
    [row] = [line.split() for line in out.splitlines() if line.startswith(RECORD)]
    [check] = [line.strip() for line in out.splitlines() if line.startswith(f"    {RECORD}")]
    return row, check


@pytest.mark.parametrize("layout", ["package", "workspace"])
def test_a_hand_written_rule_of_cargo_toml_covers_the_record_in_every_command(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    layout: str,
) -> None:
    crate(tmp_path, layout, monkeypatch)

    code, out, err = run(capsys, "check", "src", "--format", "json")
    [finding] = json.loads(out)["findings"]
    assert code == 1
    assert (finding["rule"], finding["records"]) == (RULE, [RECORD]), err

    code, out, _ = run(capsys, "rules", "list", "--format", "json")
    rows = {row["id"]: row for row in json.loads(out)["rules"]}
    assert code == 0 and rows[RULE]["records"] == [RECORD]
    assert not [r for r in rows if r.startswith("derived-") and RECORD in rows[r]["records"]]

    for argv in (("records", "check"), ("records", "check", "myrecords")):
        code, out, _ = run(capsys, *argv)
        assert code == 0
        row, check = records_check_row(out)
        assert row[1] == RULE and row[5] == "bound", out  # panic half, status
        assert check.split()[1:3] == ["hand-written", RULE]
        assert not [x for x in out.splitlines() if x.startswith("unbound (") and RECORD in x]

    code, out, _ = run(capsys, "records", "derive", RECORD)
    assert code == 0 and out.strip() == f"# record {RECORD}: covered by the rule {RULE}"

    code, out, _ = run(capsys, "explain", str(tmp_path / "log.txt"))
    assert code == 0 and out.startswith(f"record {RECORD}  (line 2) === Tensor Operation Error ===")
    assert f"panic half: checked by the hand-written rule {RULE} (" in out
    assert "derived" not in out


def test_without_the_hand_written_rule_every_command_says_derived_never_unbound(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    crate(tmp_path, "package", monkeypatch, rules=False)

    code, out, _ = run(capsys, "check", "src", "--format", "json")
    [finding] = json.loads(out)["findings"]
    derived = finding["rule"]
    assert meta.rule_by_id(derived).spec.derived_from is not None
    assert finding["records"] == [RECORD]

    code, out, _ = run(capsys, "rules", "list", "--format", "json")
    rows = {row["id"]: row for row in json.loads(out)["rules"]}
    assert RECORD in rows[derived]["records"]

    code, out, _ = run(capsys, "records", "check")
    row, check = records_check_row(out)
    assert row[1] == derived and row[5] != "unbound"
    assert check.split()[1:3] == ["derived", derived]
    assert "unbound (" not in out

    code, out, _ = run(capsys, "explain", str(tmp_path / "log.txt"))
    assert code == 0
    assert f"panic half: checked by the derived rule {derived} (burn crates/" in out


def test_explain_and_records_check_take_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--rules names the folder where no Cargo.toml does."""
    app = crate(tmp_path, "package", monkeypatch, rules=False)
    rules = str(app / "my-rules")
    code, out, _ = run(capsys, "records", "check", "--rules", rules, "myrecords")
    assert code == 0 and records_check_row(out)[0][1] == RULE
    code, out, _ = run(capsys, "explain", "--rules", rules, str(tmp_path / "log.txt"))
    assert code == 0
    assert f"panic half: checked by the hand-written rule {RULE} (" in out


def test_derive_of_an_id_that_is_not_shipped_suggests_records(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no Cargo.toml: only the shipped records
    code, out, _ = run(capsys, "records", "derive", RECORD)
    assert code == 2 and "--records PATH" in out
    code, out, _ = run(capsys, "records", "derive", RECORD, "--records", str(DATA / "myrecords"))
    assert code == 0 and out.startswith(f"# derived from record {RECORD} (burn crates/")

"""`panic-lens rules test | list` and `check --rules`: user rule folders end to end.

The fixture folders under data/: `rules_pass` (a rule whose example holds), `rules_fail` (a
rule whose example does not, and a rule without examples), `rules_broken` (a rule file with
a bad key).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from records_factory import envelope, record

from panic_lens.cli import main
from panic_lens.commands.rules import shown
from panic_lens.rules import meta

DATA = Path(__file__).parent / "data"
PASS, FAIL, BROKEN = DATA / "rules_pass", DATA / "rules_fail", DATA / "rules_broken"
FAIL_EXAMPLE = FAIL / "pool-stride-divides-kernel.rs"
EXAMPLE = PASS / "max-pool-zero-stride.rs"
# how `rules test` prints a path: relative to the current folder when inside it
FAIL_SHOWN, BROKEN_SHOWN = shown(FAIL_EXAMPLE), shown(BROKEN / "bad-severity.toml")


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    """The registry is one per process: each test leaves it as it found it."""
    before = meta.added_rules()
    yield
    meta.set_added_rules(before)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- rules test ----------------------------------------------------------------------------


def test_a_rule_whose_examples_hold_passes(capsys) -> None:
    code, out, _ = run(capsys, "rules", "test", str(PASS))
    # 3 `expect` lines flagged, 3 `ok` lines not (a parameter, a literal 1, a local function)
    assert out == ("rules test: 1 rule(s), 1 example file(s), 6 expectation(s) met, 0 failed\n")
    assert code == 0


def test_each_failed_expectation_is_named_by_file_and_line(capsys) -> None:
    code, out, _ = run(capsys, "rules", "test", str(FAIL))
    lines = out.splitlines()
    rule = "pool-stride-divides-kernel"
    assert lines[:3] == [
        f"{FAIL_SHOWN}:6: expected {rule} but nothing was found",
        f"{FAIL_SHOWN}:7: {rule} flagged a line marked ok: stride 2 does not divide kernel size 5",
        f"{FAIL_SHOWN}:8: {rule}: condition not evaluated: modulus by zero",
    ]
    missing = shown(FAIL / "no-examples.rs")
    assert lines[3] == f"warning: rule pool-no-examples has no examples: no {missing}"
    assert lines[4] == "rules test: 2 rule(s), 1 example file(s), 2 expectation(s) met, 3 failed"
    assert code == 1


def test_a_broken_rule_file_exits_two_and_the_others_are_still_tested(capsys) -> None:
    code, out, _ = run(capsys, "rules", "test", str(BROKEN), str(PASS))
    assert out.splitlines()[0] == (
        f"panic-lens: rule file error: {BROKEN_SHOWN}:4: severity: 'fatal' is"
        " not one of error, warning, information, hint"
    )
    assert "6 expectation(s) met, 0 failed, 1 broken rule file(s)" in out
    assert code == 2


def test_rules_test_json(capsys) -> None:
    code, out, _ = run(capsys, "rules", "test", "--format", "json", str(FAIL), str(BROKEN))
    report = json.loads(out)
    assert code == 2
    assert report["rules"] == ["pool-no-examples", "pool-stride-divides-kernel"]
    assert report["examples"] == [FAIL_SHOWN]
    assert report["met"] == 2
    assert [(f["line"], f["kind"]) for f in report["failures"]] == [
        (6, "missing"),
        (7, "unexpected"),
        (8, "condition"),
    ]
    assert report["errors"] == [
        {
            "kind": "rule",
            "path": BROKEN_SHOWN,
            "line": 4,
            "key": "severity",
            "reason": "'fatal' is not one of error, warning, information, hint",
        }
    ]


def test_an_expect_naming_no_rule_in_use_fails(tmp_path: Path, capsys) -> None:
    folder = Path(shutil.copytree(PASS, tmp_path / "rules"))
    example = folder / "max-pool-zero-stride.rs"
    text = example.read_text().replace(
        "// expect: max-pool-zero-stride\n    max_pool1d(x.clone(), 3, STILL",
        "// expect: max-pool-zero-stride, no-such-rule\n    max_pool1d(x.clone(), 3, STILL",
    )
    example.write_text(text)
    code, out, _ = run(capsys, "rules", "test", str(folder))
    assert f"{example}:7: `// expect: no-such-rule` names no rule in use" in out.splitlines()
    assert code == 1


def test_the_shipped_rules_are_tested_by_default(capsys) -> None:
    """CI runs `rules test` over the shipped rules (rules/defs): every shipped rule is in the
    run with its examples, and every annotation holds (known misses are `todo-expect`)."""
    from panic_lens.commands.rules import test_rules

    code, out, _ = run(capsys, "rules", "test")
    summary = out.splitlines()[-1]
    assert summary.startswith(f"rules test: {len(meta.SHIPPED)} rule(s), ")
    assert "broken" not in summary and ", 0 failed" in summary and code == 0, out
    outcome = test_rules([])
    assert outcome.rules == [r.id for r in meta.SHIPPED]
    assert outcome.exit_code == code
    assert outcome.examples == [shown(r.spec.examples) for r in meta.SHIPPED if r.spec]
    assert outcome.warnings == []


def test_without_a_path_the_rules_the_cargo_toml_names_are_tested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The rules in use for the current folder: the shipped ones, the package's table and the
    workspace's, each folder relative to its Cargo.toml; paths printed from the folder."""
    root = tmp_path / "ws"
    app = root / "app"
    shutil.copytree(FAIL, app / "my-rules")
    shutil.copytree(BROKEN, root / "shared-rules")
    (root / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n\n[workspace.metadata.panic-lens]\n'
        'rules = ["shared-rules"]\n'
    )
    (app / "src").mkdir(parents=True)
    (app / "src" / "lib.rs").write_text("")
    (app / "Cargo.toml").write_text(
        '[package]\nname = "app"\nversion = "0.1.0"\n\n'
        '[package.metadata.panic-lens]\nrules = ["my-rules"]\n'
    )
    monkeypatch.chdir(root)
    code, out, _ = run(capsys, "rules", "test")
    lines = out.splitlines()
    assert lines[0] == (
        "panic-lens: rule file error: shared-rules/bad-severity.toml:4: severity: 'fatal' is not"
        " one of error, warning, information, hint"
    )
    assert code == 2  # a broken rule file; the others are tested all the same
    assert lines[-1].startswith(f"rules test: {len(meta.SHIPPED)} rule(s), ")  # the root's
    monkeypatch.chdir(app)
    code, out, _ = run(capsys, "rules", "test")
    lines = out.splitlines()
    rule = "pool-stride-divides-kernel"
    assert f"my-rules/{rule}.rs:6: expected {rule} but nothing was found" in lines
    assert "warning: rule pool-no-examples has no examples: no my-rules/no-examples.rs" in lines
    assert lines[0].startswith(f"panic-lens: rule file error: {root / 'shared-rules'}")  # above
    assert lines[-1].startswith(f"rules test: {len(meta.SHIPPED) + 2} rule(s), ")
    assert code == 2


def test_a_known_miss_is_reported_and_fails_once_found(tmp_path: Path, capsys) -> None:
    folder = Path(shutil.copytree(PASS, tmp_path / "rules"))
    example = folder / "max-pool-zero-stride.rs"
    text = example.read_text()
    # an expectation the rule meets, marked as a known miss: the rule now finds it
    marked = text.replace(
        "// expect: max-pool-zero-stride", "// todo-expect: max-pool-zero-stride", 1
    )
    example.write_text(marked)
    code, out, _ = run(capsys, "rules", "test", str(folder))
    assert "now flags this line: make `// todo-expect:` an `// expect:`" in out and code == 1
    # a line nothing flags, marked as a known miss: reported, not a failure
    unflagged = (
        text + "fn later() { /* not a call */ } // todo-expect: max-pool-zero-stride (why)\n"
    )
    example.write_text(unflagged)
    code, out, _ = run(capsys, "rules", "test", str(folder))
    assert code == 0 and "(known miss)" in out and "1 known miss(es)" in out


# ---- rules list ----------------------------------------------------------------------------


def test_rules_list_shows_shipped_and_added_rules(capsys) -> None:
    code, out, _ = run(capsys, "rules", "list", "--rules", str(PASS))
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert code == 0
    # and the rules derived from the shipped records that no shipped rule covers
    derived = {r.id for r in meta.derived_rules()}
    assert set(rows) == {r.id for r in meta.SHIPPED} | {"max-pool-zero-stride"} | derived
    assert rows["max-pool-zero-stride"].split() == [
        "max-pool-zero-stride",
        "warning",
        "language",
        str(PASS / "max-pool-zero-stride.toml"),
        "-",
    ]
    assert rows["ctc-target-capacity"].split()[:5] == [
        "ctc-target-capacity",
        "error",
        "hook",
        "ctc-target-capacity",
        "shipped",
    ]


def test_rules_list_json_binds_records_to_a_user_rule(tmp_path: Path, capsys) -> None:
    """A record whose panic half names the user rule's panic site is bound to it."""
    rec = record(
        "userrule00000001",
        errorMessage="stride must be positive",
        messagePattern="stride must be positive",
        filePath="crates/burn-tensor/src/tensor/module.rs",
        sourceCode='assert!(stride > 0, "stride must be positive");',
        solutions=["use a stride of at least 1 in max_pool1d"],
    )
    path = tmp_path / "records.json"
    path.write_text(json.dumps(envelope(rec)))
    argv = ["rules", "list", "--format", "json", "--rules", str(PASS), "--records", str(path)]
    code, out, _ = run(capsys, *argv)
    report = json.loads(out)
    by_id = {row["id"]: row for row in report["rules"]}
    user = by_id["max-pool-zero-stride"]
    assert (user["kind"], user["hook"], user["severity"], user["source"]) == (
        "language",
        None,
        "warning",
        str(PASS / "max-pool-zero-stride.toml"),
    )
    ctc = by_id["ctc-target-capacity"]
    assert (ctc["kind"], ctc["hook"], ctc["source"]) == ("hook", "ctc-target-capacity", "shipped")
    assert user["examples"] == str(EXAMPLE)
    assert report["errors"] == []
    assert user["records"] == ["userrule00000001"]
    assert code == 0


def test_rules_list_reports_a_broken_rule_file(capsys) -> None:
    code, out, err = run(capsys, "rules", "list", "--rules", str(BROKEN))
    assert "bad-severity.toml:4: severity:" in err
    assert "pool-bad-severity" not in out
    assert code == 2


# ---- check --rules -------------------------------------------------------------------------


def test_check_runs_the_rules_of_a_folder(capsys) -> None:
    code, out, _ = run(capsys, "check", "--format", "json", "--rules", str(PASS), str(EXAMPLE))
    found = [(f["line"], f["rule"]) for f in json.loads(out)["findings"]]
    assert found == [(7, "max-pool-zero-stride"), (8, "max-pool-zero-stride"),
                     (11, "max-pool-zero-stride")]  # fmt: skip
    assert code == 1  # warnings fail by default


def test_without_the_folder_nothing_is_found(capsys) -> None:
    code, out, _ = run(capsys, "check", "--format", "json", str(EXAMPLE))
    assert json.loads(out)["findings"] == []
    assert code == 0


def test_severity_may_name_a_rule_of_a_folder(capsys) -> None:
    argv = ["check", "--rules", str(PASS), "--severity", "max-pool-zero-stride=off", str(EXAMPLE)]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert out == "panic-lens: no findings in 1 file\n"


def test_a_broken_rule_file_is_an_error_and_the_good_rules_still_run(capsys) -> None:
    argv = ["check", "--rules", str(BROKEN), "--rules", str(PASS), str(EXAMPLE)]
    code, out, err = run(capsys, *argv)
    assert err == (
        f"panic-lens: rule file error: {BROKEN / 'bad-severity.toml'}:4: severity: 'fatal' is"
        " not one of error, warning, information, hint\n"
    )
    assert "3 findings" in out
    assert code == 2


def test_a_broken_rule_file_in_json_and_sarif(capsys) -> None:
    argv = ["check", "--rules", str(BROKEN), str(EXAMPLE), "--format"]
    code, out, _ = run(capsys, *argv, "json")
    assert code == 2
    assert json.loads(out)["errors"] == [
        {
            "kind": "rule",
            "path": str(BROKEN / "bad-severity.toml"),
            "line": 4,
            "key": "severity",
            "reason": "'fatal' is not one of error, warning, information, hint",
        }
    ]
    code, out, _ = run(capsys, *argv, "sarif")
    notes = json.loads(out)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert code == 2
    assert [n["message"]["text"] for n in notes] == [
        f"panic-lens: rule file error: {BROKEN / 'bad-severity.toml'}:4: severity: 'fatal' is"
        " not one of error, warning, information, hint"
    ]


def test_a_missing_rules_folder_is_an_error(tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, "check", "--rules", str(tmp_path / "gone"), str(EXAMPLE))
    assert f"{tmp_path / 'gone'}: no such rules folder or file" in err
    assert code == 2


def crate_with_rules(root: Path, manifest: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text(manifest)
    shutil.copy(EXAMPLE, root / "src" / "lib.rs")
    return root


def test_check_reads_the_rules_of_the_package_metadata(tmp_path: Path, capsys) -> None:
    shutil.copytree(PASS, tmp_path / "lint")  # beside the crate: its example is not checked
    root = crate_with_rules(
        tmp_path / "app",
        '[package]\nname = "app"\nversion = "0.1.0"\n\n'
        '[package.metadata.panic-lens]\nrules = ["../lint"]\n',
    )
    code, out, _ = run(capsys, "check", "--format", "json", str(root))
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["max-pool-zero-stride"] * 3
    assert code == 1


def test_workspace_metadata_paths_are_relative_to_the_workspace_manifest(
    tmp_path: Path, capsys
) -> None:
    shutil.copytree(PASS, tmp_path / "ws" / "lint")
    (tmp_path / "ws").mkdir(exist_ok=True)
    (tmp_path / "ws" / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n\n[workspace.metadata.panic-lens]\nrules = ["lint"]\n'
    )
    member = crate_with_rules(
        tmp_path / "ws" / "app", '[package]\nname = "app"\nversion = "0.1.0"\n'
    )
    code, out, _ = run(capsys, "check", "--format", "json", str(member))
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["max-pool-zero-stride"] * 3
    assert code == 1


def test_the_examples_of_the_rules_in_use_are_left_out_of_a_walk(tmp_path: Path, capsys) -> None:
    """A rules folder inside the crate: its example's `// expect:` lines are not findings of
    the crate; the example named as a path is checked like any file."""
    shutil.copytree(PASS, tmp_path / "app" / "lint")
    root = crate_with_rules(
        tmp_path / "app",
        '[package]\nname = "app"\nversion = "0.1.0"\n\n'
        '[package.metadata.panic-lens]\nrules = ["lint"]\n',
    )
    code, out, _ = run(capsys, "check", "--format", "json", str(root))
    paths = {Path(f["path"]).name for f in json.loads(out)["findings"]}
    assert (paths, code) == ({"lib.rs"}, 1)
    example = root / "lint" / "max-pool-zero-stride.rs"
    code, out, _ = run(capsys, "check", "--format", "json", str(root), str(example))
    found = [Path(f["path"]).name for f in json.loads(out)["findings"]]
    assert sorted(found) == ["lib.rs"] * 3 + ["max-pool-zero-stride.rs"] * 3

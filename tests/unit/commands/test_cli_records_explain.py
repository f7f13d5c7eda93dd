"""`panic-lens records check` (binding table, drift) and `panic-lens explain`, end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from records_factory import REPO, SEEDS, record

from panic_lens.catalog import load_catalog
from panic_lens.cli import main

# A burn checkout next to this repository, or wherever BURN_CHECKOUT points.
BURN = Path(os.environ.get("BURN_CHECKOUT", REPO.parent / "burn-checkout"))
CTC_LOG = (
    "running 2 tests\n"
    "test asr::tests::long_targets ... FAILED\n"
    "thread 'asr::tests::long_targets' panicked at src/kernel/ctc.rs:309:5:\n"
    "ctc_loss: 2 * max_target_len + 1 = 10001 exceeds the kernel's shared-memory alpha "
    "capacity (8192). Reduce target length or raise SHARED_ALPHA_CAPACITY.\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
ASYNC_LOG = (
    "thread 'main' panicked at /r/burn-rl-0.22.0/src/policy/async_policy.rs:321:9:\n"
    "not implemented: Not implemented yet. Please load the record on the inner policy before "
    "creating an async policy.\n"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_records_check_shows_each_half_and_the_split_records(capsys) -> None:
    code, out, _ = run(capsys, "records", "check")
    assert code == 0
    assert out.splitlines()[0].split() == [
        "record", "id", "panic", "half", "->", "by", "knowledge", "half", "->", "by", "status",
        "advisories",
    ]  # fmt: skip
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:4]}
    assert rows["2d90c97bb9ee521c"][:5] == [
        "ctc-target-capacity",
        "site",
        "async-policy-load-record",
        "words",
        "split",
    ]
    assert rows["98e8605c71c1dd9c"][:5] == [
        "ctc-target-capacity",
        "site",
        "router-unsupported-dtype",
        "words",
        "split",
    ]
    assert rows["22a18ddf8713058a"][:5] == [
        "interpolate-backward-mode",
        "site",
        "interpolate-backward-mode",
        "site",
        "bound",
    ]
    assert "split (halves bound to different rules): 2d90c97bb9ee521c, 98e8605c71c1dd9c" in out


def test_records_check_reports_invalid_and_unbound_records(capsys, write_records) -> None:
    path = write_records("dump.jsonl", [record("lonely"), record("bad", lineNumber="x")])
    code, out, _ = run(capsys, "records", "check", str(path))
    assert code == 1
    assert (
        "unbound (no rule at all, neither hand-written nor derived; still used by explain): lonely"
        in out
    )
    assert "dump.jsonl:2: record bad field lineNumber" in out


def test_records_check_folder_names_each_file_it_cannot_use(capsys, write_records) -> None:
    folder = write_records("data/good.json", record("good")).parent
    write_records("data/notes.json", "not json at all\n")
    write_records("data/empty.jsonl", "{broken\n")
    write_records("data/README.md", "# About these records\n")
    code, out, _ = run(capsys, "records", "check", str(folder))
    assert code == 1
    assert "1 valid record(s)" in out
    assert "2 invalid record(s) or file(s):" in out
    lines = out.splitlines()
    assert any(f"{folder / 'empty.jsonl'}:1:" in x and "invalid JSON" in x for x in lines)
    notes = next(x for x in lines if f"{folder / 'notes.json'}:1:" in x)
    assert notes.endswith("invalid JSON: Expecting value (column 1)")
    assert "README.md" not in out


# burn's tensor checks panic with a multi-line message (FailedTensorCheck::format in
# burn-tensor's check.rs); a record's messagePattern for one holds `\n` escapes.
TENSOR_OP_PATTERN = (
    r"=== Tensor Operation Error ===\n  Operation: '(.+?)'\n  Reason:\n    1\. The selected "
    r"index k is out of range\. Got k=(\d+) for dimension (\d+) with input shape \[(.+?)\]\. "
)


@pytest.mark.parametrize(
    "pattern",
    [TENSOR_OP_PATTERN, "x" * 28 + r"\n", "x" * 28 + r"\q", "x" * 5_000 + r"\n("],
    ids=["tensor-op", "x28-newline", "x28-bad-escape", "x5000-unclosed"],
)
def test_records_check_loads_escaped_patterns_without_hanging(write_records, pattern) -> None:
    path = write_records("tensor.json", record("tensor-op", messagePattern=pattern))
    # A subprocess, so that a validator that backtracks fails this test instead of hanging
    # the suite; the limit is generous (the check takes well under a second here).
    proc = subprocess.run(
        [sys.executable, "-m", "panic_lens", "records", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    valid = pattern.endswith(r"\n") or pattern == TENSOR_OP_PATTERN
    assert proc.returncode == (0 if valid else 1), proc.stdout
    assert ("1 valid record(s)" if valid else "field messagePattern: does not compile") in (
        proc.stdout
    )


def fake_checkout(root: Path, rec_path: str, lines: list[str]) -> Path:
    file = root / rec_path
    file.parent.mkdir(parents=True)
    file.write_text("\n".join(lines) + "\n")
    return root


def test_source_drift_on_a_tiny_checkout(capsys, tmp_path: Path, write_records) -> None:
    quote = 'fn f() {\n    let x = 1;\n    panic!("boom {}", x);\n}\n'
    base = record("drift", sourceCode=quote, sourceCodeStart=10, lineNumber=12)
    moved = {**base, "id": "moved"}
    changed = {**base, "id": "changed", "filePath": "src/changed.rs"}
    gone = {**base, "id": "gone", "filePath": "src/gone.rs"}
    recs = write_records("recs.jsonl", [base, moved, changed, gone])
    checkout = tmp_path / "burn"
    fake_checkout(checkout, "crates/widgets/src/lib.rs", [""] * 12 + quote.splitlines())
    fake_checkout(
        checkout,
        "src/changed.rs",
        [""] * 3 + ["fn f<R>() {", "    let x = 2;", '    panic!("boom {}", x);', "}"],
    )
    code, out, _ = run(capsys, "records", "check", str(recs), "--source", str(checkout))
    assert code == 0
    drift = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "moved" in drift["drift"] and "now line 15 (+3 lines)" in drift["drift"]
    assert "changed" in drift["changed"] and "now line 6 (-6 lines)" in drift["changed"]
    assert "no-file" in drift["gone"]
    assert "4 of 4 record(s) drifted" in out


def test_source_that_is_not_a_folder_is_a_usage_error(capsys, tmp_path: Path) -> None:
    assert run(capsys, "records", "check", "--source", str(tmp_path / "nope"))[0] == 2


@pytest.mark.skipif(not BURN.is_dir(), reason="no burn checkout next to the repository")
def test_source_drift_against_the_real_burn_checkout(capsys) -> None:
    code, out, _ = run(capsys, "records", "check", "--source", str(BURN))
    assert code == 0
    [line] = [x for x in out.splitlines() if x.startswith("  22a18ddf8713058a")]
    assert "base.rs:125" in line and "now line 14" in line  # 145-150 at burn 0.22


def test_explain_finds_the_ctc_record_and_withholds_its_split_knowledge(capsys, tmp_path) -> None:
    log = tmp_path / "test.log"
    log.write_text(CTC_LOG)
    code, out, _ = run(capsys, "explain", str(log))
    assert code == 0
    # the answer starts on the first line (no empty line before it)
    assert out.splitlines()[0].startswith("record 2d90c97bb9ee521c  (line 4) ctc_loss: 2 *")
    assert "https://github.com/tracel-ai/burn/blob/" in out
    assert "knowledge half bound to: async-policy-load-record" in out
    assert "Load the record on the inner policy" not in out  # AsyncPolicy advice, not for ctc


def test_explain_async_message_shows_rule_knowledge_with_advisories(capsys, tmp_path) -> None:
    log = tmp_path / "rl.log"
    log.write_text(ASYNC_LOG)
    code, out, _ = run(capsys, "explain", str(log))
    assert code == 0
    assert out.startswith("No record's messagePattern matches this text.")
    assert "known text of rule async-policy-load-record  (line 2)" in out
    assert "from record 2d90c97bb9ee521c" in out
    assert "AsyncPolicy::new takes two arguments" in out


def test_explain_nothing_and_unreadable(capsys, tmp_path: Path) -> None:
    quiet = tmp_path / "ok.log"
    quiet.write_text("test result: ok. 12 passed\n")
    code, out, _ = run(capsys, "explain", str(quiet))
    assert code == 1 and "No record's messagePattern matches" in out
    # what explain knows, counted from the registry (no "four rules" left over)
    from panic_lens.catalog.runtime import RUNTIME_TEXTS
    from panic_lens.rules.meta import rules

    known = {t.rule for t in RUNTIME_TEXTS}
    assert f"{len(known)} of the {len(rules())} rules in use have one" in out
    assert "four" not in out
    code, _, err = run(capsys, "explain", str(tmp_path / "missing.log"))
    assert code == 2 and "missing.log" in err


def test_explain_reads_stdin_and_survives_a_catastrophic_record(tmp_path, write_records) -> None:
    evil = write_records("evil.json", record("evil", messagePattern="(a|aa)+$"))
    text = ("a" * 100 + "!\n") * 20 + CTC_LOG
    proc = subprocess.run(
        [sys.executable, "-m", "panic_lens", "explain", "-", "--records", str(evil)],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "record 2d90c97bb9ee521c" in proc.stdout
    assert "record evil: pattern timed out, skipped" in proc.stderr


def test_seed_records_match_their_own_error_messages() -> None:
    catalog = load_catalog().catalog
    for rec in catalog.records:
        filled = rec.panic.error_message.replace("{}", "7")
        for i in range(4):
            filled = filled.replace(f"{{{i}:?}}", "X").replace(f"{{{i}}}", "oops")
        found = [m.record_id for m in catalog.explain(filled)]
        assert rec.id in found, rec.id
        # another record matches only when burn prints the very same text for its panic
        # (cross-entropy and binary cross-entropy share their smoothing message)
        others = [catalog.get(i) for i in found if i != rec.id]
        assert all(o is not None and o.panic.error_message == rec.panic.error_message
                   for o in others), (rec.id, found)  # fmt: skip


def test_records_check_scores_explain_each_binding(capsys, write_records) -> None:
    neighbour = record(
        "interp2d",
        errorMessage="Either output_size or scale_factor must be provided",
        filePath="crates/burn-nn/src/modules/interpolate/interpolate2d.rs",
        documentation="Interpolate2d needs a size: interpolate has none to resize to.",
    )
    path = write_records("extra.json", neighbour)
    code, out, _ = run(capsys, "records", "check", "--scores", str(path), str(SEEDS))
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:5]}
    interp_2d = "interpolate2d-missing-output-size-and-scale"
    assert rows["interp2d"][:5] == [interp_2d, "site", "-", "-", "partial"]
    lines = [line.strip() for line in out.splitlines() if line.startswith("  2d90c97bb9ee521c")]
    assert lines == [
        "2d90c97bb9ee521c  panic      sites: ctc-target-capacity at "
        "crates/burn-cubecl/src/kernel/ctc.rs:307 (guard and message); ctc-target-capacity at "
        "crates/burn-cubecl/src/kernel/ctc.rs:610 (guard), outmatched",
        "2d90c97bb9ee521c  knowledge  words: async-policy-load-record 27",
    ]
    lines = [line.strip() for line in out.splitlines() if line.startswith("  interp2d")]
    assert lines == [
        f"interp2d  panic      sites: {interp_2d} at "
        "crates/burn-nn/src/modules/interpolate/interpolate2d.rs:159 (message)",
        "interp2d  knowledge  words: interpolate-backward-mode 4.5",
        "interp2d  knowledge  not bound to interpolate-backward-mode: the panic half is about "
        "another panic of its APIs",
    ]

"""Emacs 28 (Debian emacs-nox) with eglot 1.9 (elpa-eglot) and editors/emacs/panic-lens.el."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from editor_support import (
    ASYNC_RULE,
    COVERED_NOTE,
    LSP_SEVERITY,
    ROOT,
    cli_findings,
    line_of,
    panic_text,
    records_file,
    records_with_knowledge_about,
    require,
    run_headless,
    seed_records,
    server_argv,
)

from panic_lens.model import Severity
from panic_lens.rules.meta import rule_by_id

pytestmark = pytest.mark.editor
FLAGGED = "actors.load_record(record)"


def run_emacs(
    emacs: Path,
    file: Path,
    panic: str,
    out: Path,
    severity: str | None,
    records: str | None = None,
) -> dict:
    env = {
        **os.environ,
        "PANIC_LENS_EL": str(ROOT / "editors" / "emacs" / "panic-lens.el"),
        "PANIC_LENS_CMD": json.dumps(server_argv()),
        "PANIC_LENS_RULE": ASYNC_RULE,
        "PANIC_LENS_FILE": str(file),
        "PANIC_LENS_PANIC": panic,
        "PANIC_LENS_OUT": str(out),
    }
    if severity:
        env["PANIC_LENS_SEVERITY"] = severity
        env["PANIC_LENS_EXPECT_SEVERITY"] = str(LSP_SEVERITY[Severity(severity)])
    if records:
        env["PANIC_LENS_RECORDS"] = records
    script = Path(__file__).with_name("emacs_e2e.el")
    # -q, not -Q: Debian's site-start is what puts elpa-eglot on the load-path
    return run_headless([str(emacs), "--batch", "-q", "-l", str(script)], file.parent, env, out)


@pytest.mark.parametrize("severity", [None, "hint"], ids=["default", "severity-override"])
def test_emacs_eglot_diagnose_hover_fix_explain(
    burn_app: Path, artifacts: Path, severity: str | None
) -> None:
    emacs = require(shutil.which("emacs"), "Emacs with eglot (Debian emacs-nox, elpa-eglot)")
    file = burn_app / "src" / "rl.rs"
    bound = records_with_knowledge_about("AsyncPolicy")
    assert bound, "the seed records should hold AsyncPolicy knowledge"
    explained = seed_records()[0]
    out = artifacts / f"emacs-{severity or 'default'}.json"
    res = run_emacs(emacs, file, panic_text(explained), out, severity)

    assert res["emacs"].startswith("28.") and "eglot-1.9" in res["eglot"]
    assert Path(res["project_root"]) == burn_app

    row = line_of(file, FLAGGED)
    flagged = [d for d in res["diagnostics"] if d["code"] == ASYNC_RULE]
    assert [d["line"] for d in flagged] == [row], res["diagnostics"]
    assert flagged[0]["text"].startswith(f"panic-lens [{ASYNC_RULE}]: ")
    # eglot-workspace-configuration's panicLens section reaches the server
    expected = Severity(severity) if severity else rule_by_id(ASYNC_RULE).default_severity  # type: ignore[union-attr]
    assert flagged[0]["severity"] == LSP_SEVERITY[expected]

    assert any(r["id"] in res["hover"] for r in bound), res["hover"]

    assert res["applied"] in res["code_actions"]
    assert FLAGGED not in res["buffer"], res["buffer"]
    assert not [d for d in res["diagnostics_after"] if d["code"] == ASYNC_RULE]

    # panic-lens-explain-panic names the record whose messagePattern matches line 2 of the log
    assert f"record {explained['id']}, line 2:" in res["explain"], res["explain"]

    # scanWorkspace counts every .rs file and sees the open buffer as fixed
    files, findings = len(list(burn_app.rglob("*.rs"))), len(cli_findings(burn_app))
    assert res["scan"] == {"files": files, "findings": findings - 1}, res["scan"]


def test_emacs_records_mode_shows_record_coverage(burn_app: Path, artifacts: Path) -> None:
    """The README's opt-in: a records file in `panic-lens-records-mode` (not js-mode, which
    Emacs 28 gives `.json` files) is sent to panic-lens and gets its record's coverage."""
    emacs = require(shutil.which("emacs"), "Emacs with eglot (Debian emacs-nox, elpa-eglot)")
    file, record_id = records_file(burn_app, "extra.json")
    out = artifacts / "emacs-records.json"
    res = run_emacs(emacs, file, "", out, None, records="records")

    assert res["major_mode"] == "panic-lens-records-mode"
    assert Path(res["project_root"]) == burn_app
    notes = [d for d in res["diagnostics"] if d["code"] == "record-coverage"]
    assert [d["line"] for d in notes] == [line_of(file, f'"id": "{record_id}"')], notes
    assert notes[0]["severity"] == LSP_SEVERITY[Severity.INFORMATION]
    assert f"record {record_id}: {COVERED_NOTE}" in notes[0]["text"], notes[0]["text"]


def test_emacs_package_byte_compiles_cleanly(tmp_path: Path) -> None:
    emacs = require(shutil.which("emacs"), "Emacs with eglot (Debian emacs-nox, elpa-eglot)")
    source = tmp_path / "panic-lens.el"
    shutil.copy(ROOT / "editors" / "emacs" / "panic-lens.el", source)
    strict = "(setq byte-compile-error-on-warn t)"
    proc = subprocess.run(
        [str(emacs), "--batch", "-q", "--eval", strict, "-f", "batch-byte-compile", str(source)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert source.with_suffix(".elc").exists()

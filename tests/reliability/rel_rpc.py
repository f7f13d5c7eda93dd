"""A raw JSON-RPC client for the real server over stdio: it can send what no LSP library would.

Malformed params, unknown methods, garbage framing and requests after shutdown all go through
`send`; a reader thread files every response by id and keeps every notification and stderr line.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "panic_lens", "serve"]


class RpcServer:
    """`panic-lens serve` in a subprocess, spoken to in raw JSON-RPC."""

    def __init__(self, cwd: Path | None = None, args: list[str] | None = None) -> None:
        self.proc = subprocess.Popen(
            SERVER + (args or []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
        self.responses: dict[Any, dict[str, Any]] = {}
        self.notes: list[dict[str, Any]] = []
        self.requests_from_server: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        self._cond = threading.Condition()
        self._write = threading.Lock()  # answers to server requests come from another thread
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- sending ---------------------------------------------------------------------------
    def send(self, message: dict[str, Any] | bytes) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.proc.stdin is not None
        with self._write:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def start(self, method: str, params: Any = None) -> int:
        """Send a request without waiting; returns its id."""
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def request(self, method: str, params: Any = None, timeout: float = 20.0) -> dict[str, Any]:
        return self.wait(self.start(method, params), timeout)

    def wait(self, rid: Any, timeout: float = 20.0) -> dict[str, Any]:
        """The response to request `rid` (the whole message: `result` or `error`)."""
        with self._cond:
            if not self._cond.wait_for(lambda: rid in self.responses, timeout):
                raise AssertionError(f"no response to request {rid} within {timeout}s")
            return self.responses.pop(rid)

    # -- LSP shortcuts -----------------------------------------------------------------------
    def initialize(self, root: Path, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        caps = capabilities if capabilities is not None else pull_capabilities()
        params = {
            "processId": None,
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": caps,
        }
        reply = self.request("initialize", params)
        self.notify("initialized", {})
        return reply

    def open(self, uri: str, text: str, version: int = 1) -> None:
        item = {"uri": uri, "languageId": "rust", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})

    def pull(self, uri: str, timeout: float = 30.0) -> list[dict[str, Any]]:
        reply = self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout)
        assert "result" in reply, reply
        return list(reply["result"].get("items") or [])

    def shutdown(self, timeout: float = 20.0) -> int | None:
        """shutdown + exit; the exit code (None if the process had to be killed)."""
        try:
            self.request("shutdown", None, timeout)
            self.notify("exit")
            return self.proc.wait(timeout)
        except (AssertionError, OSError, subprocess.TimeoutExpired):
            self.kill()
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def notes_of(self, method: str) -> list[dict[str, Any]]:
        with self._cond:
            return [n.get("params") or {} for n in self.notes if n.get("method") == method]

    def wait_note(self, method: str, accept: Any, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [p for p in self.notes_of(method) if accept(p)]
            if found:
                return found[-1]
            time.sleep(0.05)
        raise AssertionError(f"no {method} accepted within {timeout}s")

    def problems_logged(self) -> list[str]:
        """stderr lines and window/logMessage errors that show an exception or an error."""
        bad = [line for line in self.stderr if _looks_bad(line)]
        for note in self.notes_of("window/logMessage"):
            if note.get("type") == 1 or _looks_bad(str(note.get("message", ""))):
                bad.append(str(note.get("message")))
        return bad

    # -- reading ---------------------------------------------------------------------------
    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = _read_headers(stream)
            if length is None:
                return
            message = json.loads(stream.read(length))
            with self._cond:
                if "method" in message and "id" in message:
                    self.requests_from_server.append(message)
                    self._answer(message)
                elif "method" in message:
                    self.notes.append(message)
                else:
                    self.responses[message.get("id")] = message
                self._cond.notify_all()

    def _answer(self, message: dict[str, Any]) -> None:
        """Client side of server requests: configuration gets nulls, the rest null results."""
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [None for _ in message.get("params", {}).get("items", [])]
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        threading.Thread(target=self._reply, args=(reply,)).start()

    def _reply(self, reply: dict[str, Any]) -> None:
        # the server may have exited (or we closed its stdin) meanwhile
        with contextlib.suppress(OSError, ValueError):
            self.send(reply)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))


def pull_capabilities(encodings: list[str] | None = None) -> dict[str, Any]:
    """A client that pulls diagnostics (as Neovim 0.11 does) in the given encodings."""
    return {
        "general": {"positionEncodings": encodings or ["utf-16"]},
        "textDocument": {"diagnostic": {"dynamicRegistration": False}, "hover": {}},
        "workspace": {"configuration": True},
    }


def push_capabilities() -> dict[str, Any]:
    """A client that takes pushed diagnostics (as VS Code 1.65 does), UTF-16 only."""
    return {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}


def _read_headers(stream: Any) -> int | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            return length
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())


def _looks_bad(line: str) -> bool:
    return any(word in line for word in ("Traceback", "Exception", " ERROR ", "Error:"))

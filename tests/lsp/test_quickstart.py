"""The quick start (panic_lens/quickstart.py): a second start answers `initialize` from the
stored answer and publishes the first diagnostics before pygls is loaded; pygls then takes over
with exactly the state and messages of a normal start.

Driven by a raw JSON-RPC client over pipes, so every message the server sends is seen, in
order (pytest-lsp's client keeps only the last diagnostics per file).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import DATA, uri_of

from panic_lens import quickstart

TIMEOUT_S = 30.0
CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "publishDiagnostics": {"versionSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "didChangeWatchedFiles": {"dynamicRegistration": True},
    },
    "window": {"workDoneProgress": True},
}


class RawClient:
    """One server process, read frame by frame; answers the server's own requests."""

    def __init__(
        self, cache: Path, settings: Any = None, no_cache: bool = False,
        capabilities: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        env = {**os.environ, "PANIC_LENS_CACHE_DIR": str(cache)}
        env.pop("PANIC_LENS_NO_CACHE", None)
        if no_cache:
            env["PANIC_LENS_NO_CACHE"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panic_lens", "serve", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.settings = settings
        self.capabilities = CAPABILITIES if capabilities is None else capabilities
        self.buffer = b""
        self.seen: list[dict[str, Any]] = []  # every message from the server, in order
        self.config_requests = 0
        self.stderr = b""

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def until(self, done: Any) -> dict[str, Any]:
        """Read (answering server requests) until `done(message)`; return that message."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            message = self._next(deadline)
            self.seen.append(message)
            if "method" in message and "id" in message:  # a request to the client
                self._answer(message)
            if done(message):
                return message

    def _answer(self, request: dict[str, Any]) -> None:
        result: Any = None
        if request["method"] == "workspace/configuration":
            self.config_requests += 1
            result = [self.settings]
        self.send({"id": request["id"], "result": result})

    def _next(self, deadline: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    return json.loads(rest[:length])
            left = deadline - time.monotonic()
            assert left > 0, f"no message in {TIMEOUT_S} s; seen {self.seen}"
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 1 << 16)
                assert chunk, f"the server closed its output; stderr: {self._stderr()}"
                self.buffer += chunk

    def _stderr(self) -> str:
        self.proc.kill()
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")

    def stop(self) -> int:
        self.send({"id": "shutdown", "method": "shutdown"})
        self.until(lambda m: m.get("id") == "shutdown")
        self.send({"method": "exit"})
        code = self.proc.wait(TIMEOUT_S)
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            assert stream is not None
            stream.close()
        return code

    def publishes(self, uri: str) -> list[dict[str, Any]]:
        return [
            m["params"]
            for m in self.seen
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        ]


@pytest.fixture
def crate(tmp_path: Path) -> Path:
    root = tmp_path / "crate"
    shutil.copytree(DATA / "crate", root)
    return root


def _initialize(client: RawClient, root: Path, options: Any = None) -> dict[str, Any]:
    params = {
        "processId": os.getpid(),
        "rootUri": uri_of(root),
        "workspaceFolders": [{"uri": uri_of(root), "name": root.name}],
        "capabilities": client.capabilities,
        "initializationOptions": options,
    }
    client.send({"id": 1, "method": "initialize", "params": params})
    return client.until(lambda m: m.get("id") == 1)["result"]


def _open(client: RawClient, path: Path, version: int = 1) -> str:
    uri = uri_of(path)
    doc = {"uri": uri, "languageId": "rust", "version": version, "text": path.read_text()}
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": doc}})
    return uri


def _start(
    cache: Path, root: Path, path: Path, settings: Any = None, options: Any = None,
    capabilities: dict[str, Any] | None = None,
) -> tuple[RawClient, dict[str, Any], str]:  # fmt: skip
    """initialize, initialized, didOpen (as editors send them), until the first publish."""
    client = RawClient(cache, settings, capabilities=capabilities)
    answer = _initialize(client, root, options)
    client.send({"method": "initialized", "params": {}})
    uri = _open(client, path)
    client.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    return client, answer, uri


def _settled(client: RawClient) -> None:
    """Until pygls's server has its settings and has analysed the open documents (it asks to
    watch files right after: `initialized` in lsp/server.py)."""
    client.until(lambda m: m.get("method") == "client/registerCapability")


def _edit(client: RawClient, uri: str, version: int) -> dict[str, Any]:
    """A didChange that adds a blank line at the top, until its publish."""
    change = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
              "text": "\n"}  # fmt: skip
    params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
    client.send({"method": "textDocument/didChange", "params": params})
    done = client.until(
        lambda m: (
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"].get("version") == version
        )
    )
    return done["params"]


def test_a_second_start_answers_and_publishes_as_the_first(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, answer, uri = _start(cache, crate, path)
    assert list(cache.glob("initialize-*.json")), "the first start keeps its answer"
    assert first.config_requests == 1
    first_publish = first.publishes(uri)[0]
    assert first_publish["diagnostics"], "speech.rs has a ctc finding"
    _edit(first, uri, 2)
    assert first.stop() == 0

    second, again, uri = _start(cache, crate, path)
    assert again == answer
    assert second.publishes(uri) == [first_publish]
    _settled(second)
    assert second.config_requests == 2  # the quick start's, then pygls's own
    assert second.publishes(uri) == [first_publish], "pygls's equal publish is not sent again"
    edited = _edit(second, uri, 2)
    assert [p["version"] for p in second.publishes(uri)] == [1, 2], "no publish twice"
    assert [d["range"]["start"]["line"] for d in edited["diagnostics"]] == [
        d["range"]["start"]["line"] + 1 for d in first_publish["diagnostics"]
    ]
    at = edited["diagnostics"][0]["range"]["start"]  # pygls has the edited text
    hover = {"textDocument": {"uri": uri}, "position": at}
    second.send({"id": 7, "method": "textDocument/hover", "params": hover})
    hover = second.until(lambda m: m.get("id") == 7)
    assert "ctc" in json.dumps(hover["result"]).lower()
    assert second.stop() == 0
    answers = [m for m in second.seen if m.get("id") == 1 and "method" not in m]
    assert len(answers) == 1, "pygls's own answer to initialize is not sent"


def test_the_quick_start_uses_the_clients_settings(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    off = {"severity": {"ctc-target-capacity": "off"}}
    first, _, uri = _start(cache, crate, path, settings=off)
    assert first.stop() == 0
    second, _, uri = _start(cache, crate, path, settings=off)
    quick = second.publishes(uri)[0]
    assert not [d for d in quick["diagnostics"] if d["code"] == "ctc-target-capacity"]
    assert quick == first.publishes(uri)[0]
    _settled(second)
    assert second.publishes(uri) == [quick]
    _edit(second, uri, 2)
    assert [p["version"] for p in second.publishes(uri)] == [1, 2]
    assert second.stop() == 0


def test_initialization_options_name_another_answer(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, _, _ = _start(cache, crate, path)
    assert first.stop() == 0
    second, _, _ = _start(cache, crate, path, options={"scope": "openFiles"})
    assert second.stop() == 0
    assert len(list(cache.glob("initialize-*.json"))) == 2


def test_an_out_of_date_answer_is_renewed(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, answer, _ = _start(cache, crate, path)
    assert first.stop() == 0
    [stored] = cache.glob("initialize-*.json")
    stale = {**answer, "capabilities": {**answer["capabilities"], "hoverProvider": False}}
    stored.write_text(json.dumps(stale))
    second, got, uri = _start(cache, crate, path)
    assert got == stale  # what was stored is what this client was told
    _edit(second, uri, 2)  # pygls has answered initialize (unsent) by now
    assert second.stop() == 0
    assert json.loads(stored.read_text()) == answer
    third, got, _ = _start(cache, crate, path)
    assert got == answer
    assert third.stop() == 0


@pytest.mark.parametrize(
    ("before_open", "config_requests"),
    [
        # VS Code and Neovim tell of their settings this way; the server pulls them again
        ({"method": "workspace/didChangeConfiguration", "params": {"settings": None}}, 3),
        # anything the quick start does not expect: pygls takes over at once (the quick
        # start's request was sent already; its late answer goes nowhere)
        ({"method": "$/setTrace", "params": {"value": "off"}}, 2),
    ],
    ids=["didChangeConfiguration", "unexpected"],
)
def test_other_messages_before_the_first_diagnostics(
    crate: Path, tmp_path: Path, before_open: dict[str, Any], config_requests: int
) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, _, uri = _start(cache, crate, path)
    expected = first.publishes(uri)[0]
    assert first.stop() == 0
    client = RawClient(cache)
    _initialize(client, crate)
    client.send({"method": "initialized", "params": {}})
    client.send(before_open)
    uri = _open(client, path)
    client.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    _settled(client)
    _edit(client, uri, 2)
    assert client.publishes(uri)[0] == expected
    assert [p["version"] for p in client.publishes(uri)] == [1, 2]
    assert client.config_requests == config_requests
    assert client.stop() == 0
    assert client.proc.stderr is not None
    assert b"unknown message id" not in client.stderr


NO_ASKING = {**CAPABILITIES, "workspace": {"workspaceFolders": True,
             "didChangeWatchedFiles": {"dynamicRegistration": True}}}  # fmt: skip
OFF = {"panicLens": {"severity": {"ctc-target-capacity": "off"}}}


@pytest.mark.parametrize(
    ("capabilities", "pushed", "ctc", "config_requests", "once"),
    [
        (NO_ASKING, None, True, 0, True),  # initializationOptions only
        # and what the client pushes: the server's own path first publishes with the
        # initializationOptions alone (its didChangeConfiguration handler runs after the
        # document is analysed), then with the push; the quick start publishes the latter
        (NO_ASKING, OFF, False, 0, False),
        (CAPABILITIES, OFF, False, 2, True),  # pushed after the server asked: the push wins
        (CAPABILITIES, {"other": 1}, True, 3, True),  # no section of ours: the server asks again
    ],
    ids=["cannot-ask", "cannot-ask-pushed", "pushed", "pushed-elsewhere"],
)
def test_the_quick_start_follows_the_settings_the_server_ends_with(
    crate: Path, tmp_path: Path, capabilities: dict[str, Any], pushed: Any, ctc: bool,
    config_requests: int, once: bool,
) -> None:  # fmt: skip
    """Each start: initialize, initialized, didChangeConfiguration (when `pushed`), didOpen.
    The quick publish is what the server settles on (and is not sent twice)."""
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    runs = []
    for _ in range(2):
        client = RawClient(cache, capabilities=capabilities)
        _initialize(client, crate)
        client.send({"method": "initialized", "params": {}})
        if pushed is not None:
            client.send({"method": "workspace/didChangeConfiguration",
                         "params": {"settings": pushed}})  # fmt: skip
        uri = _open(client, path)
        client.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        _settled(client)
        _edit(client, uri, 2)
        assert client.stop() == 0
        runs.append(client)
    first, second = runs

    def settled(client: RawClient) -> dict[str, Any]:
        return [p for p in client.publishes(uri) if p["version"] == 1][-1]

    assert second.publishes(uri)[0] == settled(first) == settled(second)
    assert second.publishes(uri)[-1] == first.publishes(uri)[-1]
    if once:
        assert [p["version"] for p in second.publishes(uri)] == [1, 2]
    codes = {d["code"] for d in settled(second)["diagnostics"]}
    assert ("ctc-target-capacity" in codes) == ctc
    assert second.config_requests == config_requests


PULL = {**CAPABILITIES, "general": {"positionEncodings": ["utf-8", "utf-16"]},
        "textDocument": {**CAPABILITIES["textDocument"], "diagnostic": {}}}  # fmt: skip


def _pull(client: RawClient, uri: str, request_id: int, previous: str | None = None) -> Any:
    params: dict[str, Any] = {"textDocument": {"uri": uri}}
    if previous is not None:
        params["previousResultId"] = previous
    client.send({"id": request_id, "method": "textDocument/diagnostic", "params": params})
    return client.until(lambda m: m.get("id") == request_id and "method" not in m)["result"]


def _pull_start(cache: Path, root: Path, path: Path) -> tuple[RawClient, dict[str, Any], str]:
    client = RawClient(cache, capabilities=PULL)
    answer = _initialize(client, root)
    client.send({"method": "initialized", "params": {}})
    uri = _open(client, path)
    return client, answer, uri


def test_a_pull_client_gets_its_first_pull_answered_early(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, answer, uri = _pull_start(cache, crate, path)
    assert answer["capabilities"]["positionEncoding"] == "utf-8"
    assert "diagnosticProvider" in answer["capabilities"]
    report = _pull(first, uri, 10)
    assert report["kind"] == "full" and report["items"]
    assert first.stop() == 0

    second, again, uri = _pull_start(cache, crate, path)
    assert again == answer
    quick = _pull(second, uri, 10)
    assert quick["items"] == report["items"]
    assert quick["resultId"].startswith("quick-")
    assert second.config_requests == 1  # the quick start's own: pygls is not running yet
    _settled(second)
    assert len([m for m in second.seen if m.get("id") == 10]) == 1, "answered once"
    full = _pull(second, uri, 11, previous=quick["resultId"])
    assert full["kind"] == "full" and full["items"] == report["items"]
    assert not full["resultId"].startswith("quick-")
    assert _pull(second, uri, 12, previous=full["resultId"])["kind"] == "unchanged"
    assert not second.publishes(uri), "a pull client is never pushed diagnostics"
    assert second.stop() == 0


def test_no_cache_means_no_stored_answer(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    client = RawClient(cache, no_cache=True)
    _initialize(client, crate)
    client.send({"method": "initialized", "params": {}})
    uri = _open(client, crate / "src" / "speech.rs")
    client.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert client.publishes(uri)[0]["diagnostics"]
    assert client.stop() == 0
    assert not list(cache.glob("initialize-*.json"))


# ---- the quick start in process: what it reads, sends and hands over ----------------------


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_the_reader_reassembles_frames_and_keeps_what_pygls_must_read() -> None:
    read, write = os.pipe()
    frames = [_frame({"method": "a"}), _frame({"id": 1, "result": [1]}), _frame({"method": "b"})]
    data = b"".join(frames) + b"Content-Length: 99\r\n\r\n{partial"
    try:
        reader = quickstart.Reader(read)
        cut = len(frames[0]) + 10  # a header cut in two, then the second frame cut in two
        os.write(write, data[:5])
        os.write(write, data[5:cut])
        assert reader.next(1.0) == {"jsonrpc": "2.0", "method": "a"}
        os.write(write, data[cut:])
        assert reader.next(1.0)["result"] == [1]
        reader.drop(reader.last())
        assert reader.next(1.0)["method"] == "b"
        assert reader.next(0.05) is None  # the partial frame: not whole by the deadline
        assert reader.unread() == frames[0] + frames[2] + b"Content-Length: 99\r\n\r\n{partial"
        os.close(write)
        write = -1
        assert reader.next(1.0) is None  # the end of input
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def test_a_frame_without_a_length_stops_the_reader() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"Content-Type: x\r\n\r\n{}")
        reader = quickstart.Reader(read)
        assert reader.next(1.0) is None
        assert reader.unread() == b"Content-Type: x\r\n\r\n{}"
    finally:
        os.close(read)
        os.close(write)


QUICK_ONLY = """
import io, json, os, sys
from panic_lens import quickstart
fd, root, uri, text = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
out = io.BytesIO()
handover = quickstart.quick_start(fd, out)
assert handover is not None and handover.published, handover
print(json.dumps({
    "loaded": sorted(m for m in ("lsprotocol", "lsprotocol.types", "pygls.lsp.server", "cattrs")
                     if m in sys.modules),
    "sent": out.getvalue().count(b"Content-Length"),
}))
"""


def test_the_quick_start_publishes_without_lsprotocol(crate: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, _, _ = _start(cache, crate, path)
    assert first.stop() == 0
    params = {"rootUri": uri_of(crate), "capabilities": CAPABILITIES, "initializationOptions": None,
              "workspaceFolders": [{"uri": uri_of(crate), "name": crate.name}]}  # fmt: skip
    doc = {"uri": uri_of(path), "languageId": "rust", "version": 1, "text": path.read_text()}
    read, write = os.pipe()
    os.write(write, _frame({"id": 1, "method": "initialize", "params": {
        **params, "processId": os.getpid()}}))  # fmt: skip
    os.write(write, _frame({"method": "initialized", "params": {}}))
    os.write(write, _frame({"method": "textDocument/didOpen", "params": {"textDocument": doc}}))
    os.write(write, _frame({"id": quickstart.CONFIG_ID, "result": [None]}))
    os.close(write)
    env = {**os.environ, "PANIC_LENS_CACHE_DIR": str(cache)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", QUICK_ONLY, str(read), str(crate), uri_of(path), ""],
            pass_fds=(read,), env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
        )  # fmt: skip
    finally:
        os.close(read)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {"loaded": [], "sent": 3}  # the answer, our request, one publish


PULL_NOT_YET = """
import io, json, sys
from panic_lens import quickstart
quickstart.WAIT_S = 600.0  # were it to wait for a pull, the test would time out
out = io.BytesIO()
handover = quickstart.quick_start(int(sys.argv[1]), out)
sent = out.getvalue().count(b"Content-Length")
print(json.dumps({"answered": handover.answered is not None, "sent": sent}))
"""


def test_a_pull_client_that_has_not_pulled_yet_is_not_waited_for(
    crate: Path, tmp_path: Path
) -> None:
    """Neovim pulls a while after opening a document: pygls is loaded meanwhile, not later."""
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    first, _, uri = _pull_start(cache, crate, path)
    _pull(first, uri, 10)
    assert first.stop() == 0
    params = {"rootUri": uri_of(crate), "capabilities": PULL, "initializationOptions": None,
              "workspaceFolders": [{"uri": uri_of(crate), "name": crate.name}]}  # fmt: skip
    doc = {"uri": uri_of(path), "languageId": "rust", "version": 1, "text": path.read_text()}
    read, write = os.pipe()  # the write end stays open: the client is still there
    os.write(write, _frame({"id": 1, "method": "initialize", "params": params}))
    os.write(write, _frame({"method": "initialized", "params": {}}))
    os.write(write, _frame({"method": "textDocument/didOpen", "params": {"textDocument": doc}}))
    os.write(write, _frame({"id": quickstart.CONFIG_ID, "result": [None]}))
    env = {**os.environ, "PANIC_LENS_CACHE_DIR": str(cache)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", PULL_NOT_YET, str(read)],
            pass_fds=(read,), env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
        )  # fmt: skip
    finally:
        os.close(read)
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"answered": True, "sent": 2}  # the answer, our request


def test_what_the_quick_start_and_the_asyncio_reader_read(tmp_path: Path) -> None:
    import socket

    read, write = os.pipe()
    ours, theirs = socket.socketpair()
    out = os.open(tmp_path / "out", os.O_CREAT | os.O_WRONLY)
    try:
        assert quickstart.is_stream(read, out)  # a pipe (Emacs)
        assert quickstart.is_stream(ours.fileno(), out)  # a socket (libuv: Neovim, VS Code)
        assert not quickstart.is_stream(ours.fileno(), ours.fileno())  # one socket both ways
        assert not quickstart.is_stream(out, None)  # a file
        assert quickstart.is_stream(read, None)
    finally:
        for fd in (read, write, out):
            os.close(fd)
        ours.close()
        theirs.close()


def test_a_broken_or_foreign_stored_answer_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "initialize-x.json"
    assert quickstart.read_answer(path) is None  # none stored
    for text in ("{not json", "[1, 2]", '{"serverInfo": {}}', '{"capabilities": 3}'):
        path.write_text(text)
        assert quickstart.read_answer(path) is None, text
    quickstart.write_answer(path, {"capabilities": {"hoverProvider": True}})
    assert quickstart.read_answer(path) == {"capabilities": {"hoverProvider": True}}


def test_the_stored_answers_are_named_by_what_the_answer_depends_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path))
    base = {"processId": 1, "rootUri": "file:///a", "capabilities": CAPABILITIES}
    same = quickstart.store_path(base)
    assert same is not None and same.parent == tmp_path
    assert quickstart.store_path({**base, "processId": 2, "rootUri": "file:///b"}) == same
    assert quickstart.store_path({**base, "capabilities": PULL}) != same
    assert quickstart.store_path({**base, "initializationOptions": {"scope": "x"}}) != same
    for i in range(quickstart.KEPT_ANSWERS + 3):  # old answers are dropped past the limit
        quickstart.write_answer(tmp_path / f"initialize-{i}.json", {"capabilities": {}})
    assert len(list(tmp_path.glob("initialize-*.json"))) == quickstart.KEPT_ANSWERS


def test_a_document_closed_and_opened_again_is_published_again(crate: Path, tmp_path: Path) -> None:
    """The quick publish stands for the client's list only until anything else is sent."""
    cache = tmp_path / "cache"
    path = crate / "src" / "speech.rs"
    options = {"scope": "openFiles"}  # a closed file's list stays empty
    first, _, _ = _start(cache, crate, path, options=options)
    assert first.stop() == 0
    second, _, uri = _start(cache, crate, path, options=options)
    quick = second.publishes(uri)[0]
    # closed before pygls has published anything for it
    second.send({"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
    second.until(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                 and not m["params"]["diagnostics"])  # fmt: skip
    _open(second, path)
    again = second.until(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["diagnostics"])  # fmt: skip
    assert again["params"] == quick
    assert second.stop() == 0

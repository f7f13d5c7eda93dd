"""Protocol misuse over real stdio: every request is answered, the server never goes down.

Malformed params, garbage messages, unknown methods and URIs, didChange for an unopened
document, versions going backwards, positions past the end, cancellation, requests after
shutdown, exit without shutdown, `untitled:` documents, a 20 MB file and binary content.
"""

from __future__ import annotations

import itertools
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rel_rpc import RpcServer
from rel_support import TESTS

INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, CANCELLED = -32600, -32601, -32602, -32800
LINE_END = re.compile(r"\r\n|\r|\n")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RpcServer, Path]]:
    """One server for the tests that leave it running (each uses documents of its own)."""
    root = tmp_path_factory.mktemp("misuse") / "crate"
    crate = Path(shutil.copytree(TESTS / "lsp" / "data" / "crate", root))
    started = RpcServer(cwd=crate)
    started.initialize(crate)
    yield started, crate
    started.shutdown()


@pytest.fixture
def crate(shared: tuple[RpcServer, Path]) -> Path:
    return shared[1]


@pytest.fixture
def server(shared: tuple[RpcServer, Path]) -> RpcServer:
    """The shared server, alive; `no_tracebacks` looks at its stderr from this test on."""
    started = shared[0]
    assert started.proc.poll() is None, "an earlier test took the shared server down"
    # An earlier test's logged errors (malformed notifications log tracebacks) were written
    # before the server's last answer, but the reader thread of stderr may still be behind:
    # wait until it has been quiet a moment, so they are not counted as this test's.
    deadline, quiet = time.monotonic() + 3.0, 0
    while quiet < 3 and time.monotonic() < deadline:
        seen = len(started.stderr)
        time.sleep(0.05)
        quiet = quiet + 1 if len(started.stderr) == seen else 0
    started.mark = len(started.stderr)  # type: ignore[attr-defined]
    return started


COPIES = itertools.count()


def speech(crate: Path) -> tuple[str, str]:
    """(uri, text) of a fresh copy of the fixture file with one ctc_loss finding."""
    text = (crate / "src" / "speech.rs").read_text(encoding="utf-8")
    path = crate / "src" / f"speech_{next(COPIES)}.rs"
    path.write_text(text, encoding="utf-8")
    return path.as_uri(), text


def pos(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def hover(server: RpcServer, uri: str, line: int = 0, character: int = 0) -> dict[str, Any]:
    params = {"textDocument": {"uri": uri}, "position": pos(line, character)}
    return server.request("textDocument/hover", params)


def alive(server: RpcServer, crate: Path) -> None:
    """The server still answers a well-formed request, and has not exited."""
    assert "result" in hover(server, speech(crate)[0])
    assert server.proc.poll() is None


def no_tracebacks(server: RpcServer) -> None:
    since = server.stderr[getattr(server, "mark", 0) :]
    assert [line for line in since if "Traceback" in line] == [], "\n".join(since)


def text_at(text: str, rng: dict[str, Any]) -> str:
    """The client's text under an LSP range (LF, CRLF and lone CR end lines; UTF-16 units)."""
    starts = [0] + [m.end() for m in LINE_END.finditer(text)]

    def offset(p: dict[str, int]) -> int:
        line = text[starts[p["line"]] :]
        units = 0
        for i, ch in enumerate(line):
            if units >= p["character"]:
                return starts[p["line"]] + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return len(text)

    return text[offset(rng["start"]) : offset(rng["end"])]


# ---- malformed and unknown messages -------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "params"),
    [
        (
            "textDocument/hover",
            {"textDocument": {"uri": "file:///a.rs"}, "position": {"line": "x"}},
        ),
        ("textDocument/hover", {"position": pos(0, 0)}),
        ("textDocument/hover", None),
        ("textDocument/hover", {"textDocument": {"uri": "file:///a.rs"}, "position": pos(-1, -1)}),
        ("textDocument/codeAction", {"textDocument": {"uri": 7}, "range": [], "context": {}}),
        ("textDocument/diagnostic", {"textDocument": "file:///a.rs"}),
        ("workspace/executeCommand", {"command": 12, "arguments": "no"}),
        ("panic-lens.explainPanic", ["not", "a", "real", "method"]),
    ],
)
def test_malformed_params_are_answered_with_an_error(
    server: RpcServer, crate: Path, method: str, params: Any
) -> None:
    reply = server.request(method, params)
    assert "error" in reply, reply
    assert reply["error"]["code"] in (INVALID_PARAMS, METHOD_NOT_FOUND), reply
    alive(server, crate)


def test_unknown_method_is_method_not_found(server: RpcServer, crate: Path) -> None:
    assert server.request("panicLens/doesNotExist", {})["error"]["code"] == METHOD_NOT_FOUND
    server.notify("$/unknownNotification", {"x": 1})
    alive(server, crate)


@pytest.mark.parametrize(
    "junk",
    [b"{not json", b"[]", b'{"jsonrpc": "2.0"}', b'{"jsonrpc": "2.0", "id": 99}', b"\xff\xfe"],
)
def test_garbage_messages_are_survived(server: RpcServer, crate: Path, junk: bytes) -> None:
    server.send(junk)
    alive(server, crate)


@pytest.mark.parametrize(
    "params",
    [
        {"textDocument": {"uri": "file:///x.rs", "languageId": "rust", "version": 1}},
        {"textDocument": {"uri": "file:///x.rs", "version": 1}, "contentChanges": "oops"},
        None,
    ],
)
def test_malformed_notifications_are_survived(server: RpcServer, crate: Path, params: Any) -> None:
    server.notify("textDocument/didOpen", params)
    server.notify("textDocument/didChange", params)
    alive(server, crate)


# ---- documents the server does not know ---------------------------------------------------


def test_unknown_and_closed_uris_are_answered(server: RpcServer, crate: Path) -> None:
    uri, text = speech(crate)
    missing = (crate / "src" / "missing.rs").as_uri()
    server.open(uri, text)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    for target in (missing, uri, "file:///", "weird-scheme:thing"):
        assert "result" in hover(server, target), target
        reply = server.request("textDocument/diagnostic", {"textDocument": {"uri": target}})
        assert "result" in reply, (target, reply)
    no_tracebacks(server)


def test_did_change_for_an_unopened_document(server: RpcServer, crate: Path) -> None:
    ghost = (crate / "src" / "ghost.rs").as_uri()
    change = {"range": {"start": pos(0, 0), "end": pos(0, 0)}, "text": "fn main() {}"}
    params = {"textDocument": {"uri": ghost, "version": 2}, "contentChanges": [change]}
    server.notify("textDocument/didChange", params)
    reply = server.request("textDocument/diagnostic", {"textDocument": {"uri": ghost}})
    assert reply.get("result", {}).get("items") == [], reply
    alive(server, crate)
    no_tracebacks(server)


def test_versions_going_backwards_keep_the_latest_text(server: RpcServer, crate: Path) -> None:
    uri, text = speech(crate)
    server.open(uri, "fn main() {}\n", version=9)
    params = {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text}]}
    server.notify("textDocument/didChange", params)
    assert [d["code"] for d in server.pull(uri)] == ["ctc-target-capacity"]
    params = {"textDocument": {"uri": uri, "version": 1}, "contentChanges": [{"text": "//\n"}]}
    server.notify("textDocument/didChange", params)
    assert server.pull(uri) == []


def test_positions_past_the_end(server: RpcServer, crate: Path) -> None:
    uri, text = speech(crate)
    server.open(uri, text)
    for line, character in ((10**6, 0), (0, 10**6), (16, 10**9), (2**31 - 1, 2**31 - 1)):
        assert "result" in hover(server, uri, line, character)
    far = {"start": pos(0, 0), "end": pos(10**6, 10**6)}
    context = {"diagnostics": []}
    reply = server.request(
        "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": far, "context": context}
    )
    assert "result" in reply, reply
    # past the end: the spec clamps to the end, so the copy is appended, not dropped
    tail = {"range": {"start": pos(900, 4), "end": pos(950, 0)}, "text": "\n" + text}
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [tail]},
    )
    found = server.pull(uri)
    assert [text_at(text + "\n" + text, d["range"]) for d in found] == ["ctc_loss"] * 2
    no_tracebacks(server)


def test_cancelled_requests_are_answered(server: RpcServer, crate: Path) -> None:
    uri, text = speech(crate)
    server.open(uri, text)
    ids = [
        server.start("textDocument/diagnostic", {"textDocument": {"uri": uri}}) for _ in range(5)
    ]
    for rid in ids:
        server.notify("$/cancelRequest", {"id": rid})
    server.notify("$/cancelRequest", {"id": 424242})
    for rid in ids:
        reply = server.wait(rid)
        assert "result" in reply or reply["error"]["code"] == CANCELLED, reply
    alive(server, crate)


# ---- lifecycle ------------------------------------------------------------------------------


def test_requests_after_shutdown_get_invalid_request(crate: Path) -> None:
    server = RpcServer(cwd=crate)
    try:
        server.initialize(crate)
        assert server.request("shutdown")["result"] is None
        reply = hover(server, speech(crate)[0])
        assert reply.get("error", {}).get("code") == INVALID_REQUEST, reply
        server.notify("exit")
        assert server.proc.wait(10) == 0
    finally:
        server.kill()


def test_exit_without_shutdown_exits_with_1(crate: Path) -> None:
    server = RpcServer(cwd=crate)
    try:
        server.initialize(crate)
        server.notify("exit")
        assert server.proc.wait(10) == 1
    finally:
        server.kill()


def test_client_gone_means_server_gone(crate: Path) -> None:
    server = RpcServer(cwd=crate)
    try:
        server.initialize(crate)
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        server.proc.wait(15)
    finally:
        server.kill()


# ---- odd documents --------------------------------------------------------------------------


def test_untitled_documents_are_analysed(server: RpcServer, crate: Path) -> None:
    _, text = speech(crate)
    server.open("untitled:Untitled-1", text)
    found = server.pull("untitled:Untitled-1")
    assert [d["code"] for d in found] == ["ctc-target-capacity"]
    start = found[0]["range"]["start"]
    assert hover(server, "untitled:Untitled-1", start["line"], start["character"])["result"]
    no_tracebacks(server)


def test_twenty_megabytes_are_skipped_with_a_notice(server: RpcServer, crate: Path) -> None:
    uri, text = speech(crate)
    big_uri = (crate / "src" / "generated.rs").as_uri()
    big = text + ("// generated " + "x" * 80 + "\n") * (20 * 2**20 // 94)
    started = time.monotonic()
    server.open(big_uri, big)
    server.open(uri, text)
    assert [d["code"] for d in server.pull(uri, timeout=30)] == ["ctc-target-capacity"]
    assert time.monotonic() - started < 15, "other requests waited on the big file"
    assert server.pull(big_uri, timeout=30) == []
    shown = server.wait_note("window/showMessage", lambda p: "skipped" in p.get("message", ""))
    assert "generated.rs" in shown["message"]


@pytest.mark.parametrize("junk", ["\0\0\0", "\x00\x01\x02\x03" * 1000, "\ufffd\x7f\x00"])
def test_binary_content_is_skipped(server: RpcServer, crate: Path, junk: str) -> None:
    uri, text = speech(crate)
    server.open(uri, junk + text)
    assert server.pull(uri) == []
    alive(server, crate)
    no_tracebacks(server)


# ---- line breaks: LSP counts LF, CRLF and lone CR, and nothing else ------------------------


@pytest.mark.parametrize("breaks", ["\n", "\r\n", "\r"])
def test_diagnostic_ranges_follow_lsp_line_breaks(
    server: RpcServer, crate: Path, breaks: str
) -> None:
    """Every diagnostic's range covers `ctc_loss` in the client's own line numbering."""
    uri, text = speech(crate)
    edited = "// é🦀" + breaks + "// 中" + breaks + text
    server.open(uri, edited)
    found = server.pull(uri)
    assert [text_at(edited, d["range"]) for d in found] == ["ctc_loss"]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x85"])
def test_other_separators_do_not_shift_incremental_edits(
    crate: Path, server: RpcServer, separator: str
) -> None:
    """Unicode separators are not LSP line breaks: an edit after one lands where the client
    meant it, so diagnostics equal a fresh server's for the client's text."""
    uri, text = speech(crate)
    opened = "// a" + separator + "b\n" + text
    server.open(uri, opened)
    row = next(d for d in server.pull(uri))["range"]["start"]["line"]
    change = {"range": {"start": pos(row, 0), "end": pos(row, 0)}, "text": "// "}
    params = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]}
    server.notify("textDocument/didChange", params)
    lines = LINE_END.split(opened)
    lines[row] = "// " + lines[row]
    expected_text = "\n".join(lines)
    fresh = RpcServer(cwd=crate)
    try:
        fresh.initialize(crate)
        fresh.open(uri, expected_text)
        assert server.pull(uri) == fresh.pull(uri)
    finally:
        fresh.shutdown()

"""The server over a raw byte pipe: what no LSP client library would send."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

NO_ANSWER_S = 30
SERVE = [sys.executable, "-m", "panic_lens", "serve", "--stdio", "--log-level", "error"]


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(out: IO[bytes]) -> dict[str, Any]:
    length = None
    while (line := out.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    assert length is not None, "the server closed its output"
    message: dict[str, Any] = json.loads(out.read(length))
    return message


def next_answer(server: subprocess.Popen[bytes], seen: list[dict[str, Any]]) -> dict[str, Any]:
    """The next response; the notifications and requests before it go to `seen`. A server
    that never answers fails the test (after a generous wait) instead of hanging it."""
    out = server.stdout
    assert out is not None

    def read() -> dict[str, Any]:
        while "method" in (message := read_message(out)):
            seen.append(message)
        return message

    pool = ThreadPoolExecutor(1)
    try:
        return pool.submit(read).result(timeout=NO_ANSWER_S)
    except TimeoutError:
        server.kill()  # the read in the thread ends at the end of the output
        raise AssertionError(f"no answer in {NO_ANSWER_S} s") from None
    finally:
        pool.shutdown(wait=False)


def test_invalid_json_gets_a_parse_error_and_the_server_keeps_serving() -> None:
    server = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    seen: list[dict[str, Any]] = []
    try:
        server.stdin.write(frame(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", '))
        server.stdin.flush()
        error = next_answer(server, seen)
        assert error["id"] is None and "id" in error
        assert error["error"]["code"] == -32700
        initialize = {"jsonrpc": "2.0", "id": 2, "method": "initialize"}
        initialize["params"] = {"processId": None, "rootUri": None, "capabilities": {}}
        server.stdin.write(frame(json.dumps(initialize).encode()))
        server.stdin.flush()
        answer = next_answer(server, seen)
        assert answer["id"] == 2 and "capabilities" in answer["result"]
        shutdown = {"jsonrpc": "2.0", "id": 3, "method": "shutdown"}
        server.stdin.write(frame(json.dumps(shutdown).encode()))
        server.stdin.write(frame(b'{"jsonrpc": "2.0", "method": "exit"}'))
        server.stdin.flush()
        assert next_answer(server, seen)["id"] == 3
        assert server.wait(timeout=60) == 0
        shown = [m for m in seen if m["method"] == "window/showMessage"]
        assert shown == []  # not pygls's "Error in server"
    finally:
        server.kill()
        server.wait()

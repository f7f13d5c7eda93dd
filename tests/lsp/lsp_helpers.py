"""Helpers for the pytest-lsp tests: workspaces, initialize, diagnostics (push or pull), edits."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

DATA = Path(__file__).parent / "data"
CLIENTS = {"vscode": "visual-studio-code@v1.65.2", "neovim": "neovim@v0.11.0"}
T = TypeVar("T")


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def make_crate(root: Path, files: dict[str, str], cargo: str | None = None) -> Path:
    """A tiny crate under `root`: the shared Cargo.toml (or `cargo`) plus `files`."""
    root.mkdir(parents=True, exist_ok=True)
    manifest = cargo if cargo is not None else (DATA / "Cargo.toml").read_text()
    (root / "Cargo.toml").write_text(manifest)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


async def initialize(
    client: LanguageClient,
    root: Path,
    options: dict[str, Any] | None = None,
    capabilities: types.ClientCapabilities | None = None,
) -> types.InitializeResult:
    caps = capabilities or client_capabilities(CLIENTS[preset(client)])
    folder = types.WorkspaceFolder(uri=uri_of(root), name=root.name)
    params = types.InitializeParams(
        capabilities=caps,
        root_uri=folder.uri,
        workspace_folders=[folder],
        initialization_options=options,
    )
    return await client.initialize_session(params)


def preset(client: LanguageClient) -> str:
    return str(getattr(client, "preset", "vscode"))


def pulls(client: LanguageClient) -> bool:
    caps = client.capabilities
    return bool(caps and caps.text_document and caps.text_document.diagnostic is not None)


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = uri_of(path)
    body = text if text is not None else path.read_text(encoding="utf-8")
    item = types.TextDocumentItem(uri=uri, language_id="rust", version=version, text=body)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    return uri


async def eventually(
    probe: Callable[[], Awaitable[T] | T], accept: Callable[[T], bool], timeout: float = 10.0
) -> T:
    """Poll `probe` until `accept` holds; fail with the last value after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = probe()
        if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
            value = await value
        if accept(value):  # type: ignore[arg-type]
            return value  # type: ignore[return-value]
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s; last value: {value!r}")
        await asyncio.sleep(0.05)


async def pull(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(getattr(report, "items", None) or [])


async def diagnostics(
    client: LanguageClient, uri: str, accept: Callable[[Sequence[types.Diagnostic]], bool]
) -> list[types.Diagnostic]:
    """The file's current diagnostics, pushed or pulled as the client does, once `accept`-ed."""
    if pulls(client):
        return await eventually(lambda: pull(client, uri), accept)
    pushed = await eventually(
        lambda: client.diagnostics.get(uri), lambda d: d is not None and accept(d)
    )
    return list(pushed)


def apply_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """Apply LSP text edits the way a client does (positions in the negotiated encoding)."""
    lines = text.split("\n")

    def offset(pos: types.Position) -> int:
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = line.encode("utf-16-le" if encoding == "utf-16" else "utf-8")
        width = 2 if encoding == "utf-16" else 1
        prefix = units[: pos.character * width].decode(
            "utf-16-le" if encoding == "utf-16" else "utf-8"
        )
        return sum(len(x) + 1 for x in lines[: pos.line]) + len(prefix)

    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def encoding_of(result: types.InitializeResult) -> str:
    return str(result.capabilities.position_encoding or "utf-16")


async def send_raw(client: LanguageClient, method: str, params: object) -> object:
    """Send a request exactly as given (the client would refuse to serialize bad params)."""
    msg_id = f"raw-{uuid.uuid4().hex[:6]}"
    future: Future[object] = Future()
    client.protocol._request_futures[msg_id] = future
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    data = f"Content-Length: {len(body.encode())}\r\n\r\n{body}".encode()
    writer = client.protocol.writer
    assert writer is not None
    pending = writer.write(data)
    if pending is not None:
        await pending
    return await asyncio.wrap_future(future)

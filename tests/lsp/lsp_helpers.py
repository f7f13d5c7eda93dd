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
    probe: Callable[[], Awaitable[T] | T], accept: Callable[[T], bool], timeout: float = 20.0
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


def change_doc(
    client: LanguageClient,
    uri: str,
    version: int,
    range: types.Range | None = None,
    text: str = "",
    edits: Sequence[types.TextEdit] = (),
    encoding: str = "",
) -> None:
    """Send an incremental change: one range, or the edits of an action (last first, as
    editors apply them, so earlier positions stay valid)."""
    changes: list[types.TextDocumentContentChangeEvent] = []
    if range is not None:
        changes.append(types.TextDocumentContentChangePartial(range=range, text=text))
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))
    for edit in reversed(ordered):
        changes.append(types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text))
    doc = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(text_document=doc, content_changes=changes)
    )


async def actions_for(
    client: LanguageClient, uri: str, diag: types.Diagnostic
) -> list[types.CodeAction]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag]),
    )
    found = await client.text_document_code_action_async(params)
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def edits_of(
    client: LanguageClient, action: types.CodeAction, uri: str
) -> list[types.TextEdit]:
    """The action's edits for `uri`, resolving the action first when it came without them."""
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    assert action.edit is not None and action.edit.changes is not None
    return list(action.edit.changes[uri])


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

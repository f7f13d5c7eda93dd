"""Each pygls internal the server relies on (lsp/pygls_compat.py), exercised on the installed
pygls: a pygls release that renames or changes one fails here."""

from __future__ import annotations

import inspect
import io
import json
from typing import Any, ClassVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument, Workspace

from panic_lens.lsp import pygls_compat
from panic_lens.lsp.protocol import LspTextDocument, LspWorkspace


class Writer:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        _, _, body = data.partition(b"\r\n\r\n")
        self.frames.append(json.loads(body))

    def close(self) -> None:
        pass


def server() -> tuple[LanguageServer, Writer]:
    ls = LanguageServer("compat-test", "1")
    writer = Writer()
    ls.protocol.set_writer(writer)
    return ls, writer


def test_send_json_writes_the_message_as_one_frame() -> None:
    ls, writer = server()
    message = {
        "params": {"uri": "file:///a.rs", "diagnostics": []},
        "method": "m",
        "jsonrpc": "2.0",
    }
    pygls_compat.send_json(ls.protocol, message)
    assert writer.frames == [message]


def test_send_response_answers_with_the_error() -> None:
    ls, writer = server()
    error = types.ResponseError(code=-32700, message="parse error")
    pygls_compat.send_response(ls.protocol, None, None, error)
    pygls_compat.send_response(ls.protocol, 7, {"x": 1})
    assert writer.frames[0]["id"] is None
    assert writer.frames[0]["error"] == {"code": -32700, "message": "parse error"}
    assert writer.frames[1]["id"] == 7 and writer.frames[1]["result"] == {"x": 1}


def test_shutdown_received_follows_the_shutdown_request() -> None:
    ls, writer = server()
    assert not pygls_compat.shutdown_received(ls.protocol)
    message = {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}
    ls.protocol.handle_message(ls.protocol.structure_message(message))
    assert pygls_compat.shutdown_received(ls.protocol)
    assert writer.frames == [{"jsonrpc": "2.0", "id": 1, "result": None}]


def test_converter_builds_structure_hooks() -> None:
    ls, _ = server()
    hook = pygls_compat.converter(ls.protocol).get_structure_hook(types.Position)
    assert hook({"line": 1, "character": 2}, types.Position) == types.Position(1, 2)


def test_server_of_is_the_server_and_the_stop_event_follows_shutdown() -> None:
    ls, _ = server()
    assert pygls_compat.server_of(ls.protocol) is ls
    stop = pygls_compat.install_stop_event(ls)
    assert not stop.is_set()
    ls.shutdown()
    assert stop.is_set()


def _initialize(ls: LanguageServer) -> None:
    params = types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri="file:///w")
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    message["params"] = pygls_compat.converter(ls.protocol).unstructure(params)
    ls.protocol.handle_message(ls.protocol.structure_message(message))


def test_initialize_builds_a_plain_workspace_that_can_be_swapped() -> None:
    ls, _ = server()
    _initialize(ls)
    assert type(ls.workspace) is Workspace  # what the swap relies on
    pygls_compat.swap_workspace_class(ls.protocol, LspWorkspace)
    assert type(ls.workspace) is LspWorkspace
    ls.workspace.put_text_document(
        types.TextDocumentItem(uri="file:///w/a.rs", language_id="rust", version=1, text="a\n")
    )
    assert isinstance(ls.workspace.get_text_document("file:///w/a.rs"), LspTextDocument)


def test_workspace_creates_documents_through_the_overridden_method() -> None:
    signature = inspect.signature(Workspace._create_text_document)
    assert list(signature.parameters) == ["self", "doc_uri", "source", "version", "language_id"]
    workspace = LspWorkspace(None, position_encoding=types.PositionEncodingKind.Utf8)
    workspace.put_text_document(
        types.TextDocumentItem(uri="file:///a.rs", language_id="rust", version=3, text="x")
    )
    doc = workspace.get_text_document("file:///a.rs")
    assert type(doc) is LspTextDocument and doc.version == 3
    assert doc.position_codec is workspace.position_codec


class Recording(pygls_compat.EditableTextDocument):
    seen: ClassVar[list[str]] = []

    def incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        self.seen.append(change.text)
        if change.text == "pygls":
            self.pygls_incremental_change(change)
        else:
            self.replace_source(change.text)


def test_incremental_edits_go_through_the_hook() -> None:
    assert "_apply_incremental_change" in vars(TextDocument)
    doc = Recording("file:///a.rs", source="ab\ncd\n")
    whole = types.Range(types.Position(0, 0), types.Position(2, 0))
    doc.apply_change(types.TextDocumentContentChangePartial(range=whole, text="new\n"))
    assert doc.source == "new\n"
    start = types.Range(types.Position(0, 0), types.Position(0, 0))
    doc.apply_change(types.TextDocumentContentChangePartial(range=start, text="pygls"))
    assert doc.source == "pyglsnew\n"
    assert Recording.seen == ["new\n", "pygls"]


def test_the_stdio_loop_pieces_keep_their_signatures() -> None:
    params = list(inspect.signature(pygls_compat.run_async).parameters)
    assert params[:5] == ["stop_event", "reader", "protocol", "logger", "error_handler"]
    out = io.BytesIO()
    pygls_compat.StdoutWriter(out).write(b"frame")
    assert out.getvalue() == b"frame"

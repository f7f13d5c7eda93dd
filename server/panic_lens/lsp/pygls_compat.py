"""Every use of pygls's private names, in one place (pygls 2.x).

pygls has no public way to send a prepared JSON message, answer a request outside a handler,
know that `shutdown` was received, reach its cattrs converter, stop a stdio loop it did not
start, or choose the document class its workspace creates. Each of those is one function or
base class here, and tests/lsp/test_pygls_compat.py checks each against the installed pygls:
an update that renames or changes one fails there, not somewhere in the server.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from lsprotocol import types
from pygls.io_ import StdoutWriter, run_async
from pygls.protocol import JsonRPCProtocol
from pygls.server import JsonRPCServer
from pygls.workspace import TextDocument, Workspace

__all__ = [
    "DocumentWorkspace",
    "EditableTextDocument",
    "StdoutWriter",
    "converter",
    "install_stop_event",
    "run_async",
    "send_json",
    "send_response",
    "server_of",
    "shutdown_received",
    "swap_workspace_class",
]


def send_json(protocol: JsonRPCProtocol, message: dict[str, Any]) -> None:
    """Send `message` (JSON objects already, no lsprotocol classes) as one frame."""
    protocol._send_data(message)


def send_response(
    protocol: JsonRPCProtocol,
    msg_id: int | str | None,
    result: Any = None,
    error: types.ResponseError | None = None,
) -> None:
    """Answer request `msg_id` (None: an error about a message whose id is unknown, such as
    one that is not JSON: pygls would leave the id out, JSON-RPC says `"id": null`)."""
    if msg_id is None:
        body = converter(protocol).unstructure(error) if error is not None else None
        send_json(protocol, {"jsonrpc": "2.0", "id": None, "error": body})
        return
    protocol._send_response(msg_id, result, error)


def shutdown_received(protocol: JsonRPCProtocol) -> bool:
    """True once the client's `shutdown` request was handled."""
    return bool(getattr(protocol, "_shutdown", False))


def converter(protocol: JsonRPCProtocol) -> Any:
    """The protocol's cattrs converter (to build structure hooks ahead of the first message)."""
    return protocol._converter


def server_of(protocol: JsonRPCProtocol) -> Any:
    """The server object the protocol was made for."""
    return protocol._server


def install_stop_event(server: JsonRPCServer) -> threading.Event:
    """An event that the server's `shutdown()` sets, for a message loop the server did not
    start itself (its start_io would set one up)."""
    event = server._stop_event = threading.Event()
    return event


def swap_workspace_class(protocol: Any, cls: type[Workspace]) -> None:
    """Make the workspace pygls built inside `initialize` an instance of `cls` (a subclass of
    pygls's Workspace with no state of its own): pygls offers no hook to choose it up front."""
    workspace = protocol._workspace
    if type(workspace) is Workspace:
        workspace.__class__ = cls


class DocumentWorkspace(Workspace):
    """A Workspace whose documents are `document_class` instances."""

    document_class: ClassVar[type[TextDocument]] = TextDocument

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return self.document_class(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )


class EditableTextDocument(TextDocument):
    """A TextDocument whose incremental edits go through `incremental_change`, which may set
    the new text with `replace_source` or fall back on pygls's own edit."""

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        self.incremental_change(change)

    def incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        self.pygls_incremental_change(change)

    def pygls_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        """pygls's own incremental edit."""
        TextDocument._apply_incremental_change(self, change)

    def replace_source(self, source: str) -> None:
        self._source = source

"""The JSON-RPC protocol layer: position-encoding choice and an answer for every request.

pygls 2.1.1 turns params that fail to deserialize into an exception inside its read loop and
never answers the request, so the client waits forever; here such a request gets an error reply.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace import TextDocument, Workspace

from panic_lens.positions import Encoding

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class UnreadableRequest:
    """A request whose params did not deserialize; it is answered with `error`."""

    id: int | str
    method: str
    error: JsonRpcException


def choose_encoding(capabilities: types.ClientCapabilities) -> Encoding:
    """UTF-8 when the client offers it (no conversion needed), else the mandatory UTF-16."""
    general = capabilities.general
    offered = (general.position_encodings or []) if general else []
    return "utf-8" if types.PositionEncodingKind.Utf8 in offered else "utf-16"


class PanicLensProtocol(LanguageServerProtocol):
    """LanguageServerProtocol plus the guards above and our capability adjustments."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                return _unreadable(data, exc)
            raise

    def handle_message(self, message: Any) -> None:
        if isinstance(message, UnreadableRequest):
            logger.warning(
                "answering %s (id %s) with an error: %s",
                message.method,
                message.id,
                message.error.message,
            )
            self._send_response(message.id, None, message.error.to_response_error())
            return
        if self._shutdown and _is_request(message) and message.method != types.EXIT:
            # pygls drops these silently and the client waits forever; the spec says error.
            error = JsonRpcInvalidRequest("the server is shutting down")
            self._send_response(message.id, None, error.to_response_error())
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        encoding = choose_encoding(params.capabilities)
        # pygls picks the client's first supported encoding (possibly utf-32); narrow the offer
        # so pygls's document sync and our conversions agree on one encoding.
        if params.capabilities.general is not None:
            params.capabilities.general.position_encodings = [encoding]
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        if type(self._workspace) is Workspace:
            # pygls builds a plain Workspace inside its initialize; swap in the subclass whose
            # documents split lines as LSP does (no hook exists to choose the class up front).
            self._workspace.__class__ = LspWorkspace
        adjust = getattr(self._server, "adjust_capabilities", None)
        if adjust is not None:
            adjust(result.capabilities)
        return result


class LspTextDocument(TextDocument):
    """A TextDocument whose lines end at LF, CRLF or lone CR only, as the LSP spec says.

    pygls uses str.splitlines, which also breaks at U+2028, U+0085, form feeds and more: an
    incremental edit after one of those would land on the wrong line.
    """

    @property
    def lines(self) -> Sequence[str]:
        return tuple(_LSP_LINE.findall(self.source))


class LspWorkspace(Workspace):
    """A Workspace that creates LspTextDocuments."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _is_request(message: Any) -> bool:
    return getattr(message, "id", None) is not None and isinstance(
        getattr(message, "method", None), str
    )


def _unreadable(data: dict[str, Any], exc: JsonRpcException) -> UnreadableRequest:
    method = str(data.get("method"))
    cause = exc.__cause__
    if isinstance(cause, ClassValidationError):
        detail = "; ".join(transform_error(cause)[:5])
    else:
        detail = str(cause or exc.message)
    error = JsonRpcException(f"invalid params for {method}: {detail}", code=exc.code)
    return UnreadableRequest(id=data["id"], method=method, error=error)

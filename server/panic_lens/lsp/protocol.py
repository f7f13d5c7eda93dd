"""The JSON-RPC protocol layer: position-encoding choice and an answer for every request.

pygls 2.1.1 turns params that fail to deserialize into an exception inside its read loop and
never answers the request, so the client waits forever; here such a request gets an error reply.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

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
        adjust = getattr(self._server, "adjust_capabilities", None)
        if adjust is not None:
            adjust(result.capabilities)
        return result


def _unreadable(data: dict[str, Any], exc: JsonRpcException) -> UnreadableRequest:
    method = str(data.get("method"))
    cause = exc.__cause__
    if isinstance(cause, ClassValidationError):
        detail = "; ".join(transform_error(cause)[:5])
    else:
        detail = str(cause or exc.message)
    error = JsonRpcException(f"invalid params for {method}: {detail}", code=exc.code)
    return UnreadableRequest(id=data["id"], method=method, error=error)

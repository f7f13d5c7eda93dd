"""Server logging: stderr always, and window/logMessage once a client is connected.

stdout is the LSP channel in stdio mode, so nothing here may ever print to it.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

_LEVELS = {
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
}
_TYPES = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Forwards panic-lens log records to the client's log (window/logMessage)."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.DEBUG)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self.server.protocol, "writer", None) is None:
            return
        kind = _TYPES.get(record.levelno, types.MessageType.Log)
        if record.levelno > logging.ERROR:
            kind = types.MessageType.Error
        try:
            message = self.format(record)
            self.server.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # logging must never take the server down
            self.handleError(record)


def setup_logging(level: str | None) -> None:
    """panic_lens logs at `level` (default info) to stderr; pygls only warnings and worse."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    chosen = _LEVELS.get((level or "info").lower(), logging.INFO)
    logging.getLogger("panic_lens").setLevel(chosen)
    # pygls logs every message body at info; keep that out unless debugging.
    logging.getLogger("pygls").setLevel(
        logging.DEBUG if chosen == logging.DEBUG else logging.WARNING
    )


def attach_client_log(server: LanguageServer) -> None:
    logging.getLogger("panic_lens").addHandler(ClientLogHandler(server))

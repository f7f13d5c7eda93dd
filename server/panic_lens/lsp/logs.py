"""Server logging: one channel per record, so a client that shows both never shows it twice.

panic-lens's own records, at every level, go to the client's log (window/logMessage) once a
client is connected, and to stderr only while none is (before the connection, after it broke).
pygls's records (warnings and worse, or everything with --log-level debug) go to stderr.
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
_STDERR_FORMAT = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
_TYPES = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Sends panic-lens log records to the client's log (window/logMessage), or to stderr
    while no client can receive them."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.DEBUG)
        self.server = server
        self.fallback = logging.StreamHandler(sys.stderr)
        self.fallback.setFormatter(_STDERR_FORMAT)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self.server.protocol, "writer", None) is None:
            self.fallback.emit(record)
            return
        kind = _TYPES.get(record.levelno, types.MessageType.Log)
        if record.levelno > logging.ERROR:
            kind = types.MessageType.Error
        try:
            message = self.format(record)
            self.server.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # logging must never take the server down
            self.fallback.emit(record)


def setup_logging(level: str | None) -> None:
    """panic_lens logs at `level` (default info) to stderr; pygls only warnings and worse."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_STDERR_FORMAT)
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
    """panic-lens's records go to the client (or stderr while none is connected), not also
    to the root logger's stderr handler."""
    logger = logging.getLogger("panic_lens")
    logger.handlers[:] = [h for h in logger.handlers if not isinstance(h, ClientLogHandler)]
    logger.addHandler(ClientLogHandler(server))
    logger.propagate = False

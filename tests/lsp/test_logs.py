"""Each panic-lens log record reaches one channel: the client's log when one is connected,
else stderr (a client that shows both, as VS Code does, shows it once)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from pygls.lsp.server import LanguageServer

from panic_lens.lsp.logs import attach_client_log, setup_logging


class Writer:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.partition(b"\r\n\r\n")[2]))

    def close(self) -> None:
        pass


@pytest.fixture
def logs() -> Iterator[logging.Logger]:
    logger, root = logging.getLogger("panic_lens"), logging.getLogger()
    saved = (logger.handlers[:], logger.propagate, logger.level, root.handlers[:], root.level)
    yield logger
    logger.handlers[:], logger.propagate, level, root.handlers[:], root_level = saved
    logger.setLevel(level)
    root.setLevel(root_level)


def test_an_info_record_goes_to_the_client_only(
    logs: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    server = LanguageServer("log-test", "1")
    setup_logging("info")
    attach_client_log(server)
    logging.getLogger("panic_lens.lsp.scan").info("workspace scan: 3 files")
    assert "workspace scan: 3 files" in capsys.readouterr().err  # no client yet: stderr
    writer = Writer()
    server.protocol.set_writer(writer)
    logging.getLogger("panic_lens.lsp.scan").info("workspace scan: 4 files")
    logged = [m["params"]["message"] for m in writer.messages if m["method"] == "window/logMessage"]
    assert logged == ["workspace scan: 4 files"]
    assert "workspace scan: 4 files" not in capsys.readouterr().err

"""After `exit` closes stdout, what the cancelled tasks still send is dropped quietly (it used
to log a traceback per message, enough to rotate an editor's log)."""

from __future__ import annotations

import io

from panic_lens.lsp import pygls_compat
from panic_lens.lsp.server import ClosedAware


def test_writes_after_close_are_dropped_and_counted() -> None:
    stream = io.BytesIO()
    writer = ClosedAware(pygls_compat.StdoutWriter(stream), stream)
    writer.write(b"Content-Length: 2\r\n\r\n{}")
    assert stream.getvalue().endswith(b"{}")
    stream.close()
    assert writer.write(b"late") is None and writer.write(b"later") is None
    assert writer.dropped == 2


def test_a_write_racing_the_close_is_dropped() -> None:
    class Racing:
        closed = False

        def write(self, data: bytes) -> None:
            raise ValueError("write to closed file")

    racing = Racing()
    writer = ClosedAware(racing, racing)
    assert writer.write(b"x") is None and writer.dropped == 1

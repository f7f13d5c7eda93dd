"""The workspace scan of a large workspace runs in worker processes: requests are answered
while it runs, and its findings are published as they arrive."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from lsp_helpers import eventually, initialize, open_doc, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient

from panic_lens.lsp.scan import WORKER_MIN_BYTES

COPIES = 120
FILLER = "".join(f"fn filler_{i}(x: usize) -> usize {{\n    x * {i} + 1\n}}\n\n" for i in range(60))


def scan_ended(reports: dict[object, list[object]]) -> bool:
    return any(v and isinstance(v[-1], types.WorkDoneProgressEnd) for v in reports.values())


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # pushes scan results
async def test_a_hover_is_answered_while_the_scan_runs(client: LanguageClient, crate: Path) -> None:
    speech = (crate / "src/speech.rs").read_text()
    for i in range(COPIES):
        (crate / f"src/copy_{i}.rs").write_text(speech + FILLER)
    assert COPIES * len(speech + FILLER) > WORKER_MIN_BYTES  # the worker path
    await initialize(client, crate)
    uri = open_doc(client, crate / "src/speech.rs")
    await eventually(lambda: dict(client.progress_reports), lambda r: len(r) > 0)
    row = speech.splitlines().index(next(x for x in speech.splitlines() if "ctc_loss(" in x))
    column = speech.splitlines()[row].index("ctc_loss")
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(row, column))
    )
    assert hover is not None and "ctc" in str(hover.contents)
    assert not scan_ended(client.progress_reports)  # answered while the scan still ran
    # the analyses run in worker processes, not on the server's event loop
    server = psutil.Process(client._server.pid)  # type: ignore[union-attr]
    workers, _ended = await eventually(
        lambda: (server.children(), scan_ended(client.progress_reports)), lambda v: v[0] or v[1]
    )
    assert workers, "the scan ended without worker processes"
    reports = await eventually(lambda: dict(client.progress_reports), scan_ended, timeout=120)
    [values] = [v for t, v in reports.items() if str(t).startswith("panic-lens/scan")]
    assert values[-1].message.startswith(f"{COPIES + 5} files, ")
    for i in (0, COPIES - 1):
        found = client.diagnostics.get(uri_of(crate / f"src/copy_{i}.rs"))
        assert found and [d.code for d in found] == ["ctc-target-capacity"]

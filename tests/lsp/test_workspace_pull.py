"""workspace/diagnostic as LSP's long poll: held while nothing changed, answered on a change."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import change_doc, initialize, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient


@pytest.mark.parametrize("client", ["neovim"], indirect=True)  # a client that pulls
async def test_a_pull_with_nothing_new_is_held_until_a_document_changes(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    path = crate / "src/speech.rs"
    uri = open_doc(client, path)
    first = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )  # no previous results: answered at once
    [report] = [i for i in first.items if i.uri == uri]
    assert report.kind == "full" and report.items and report.result_id

    known = [types.PreviousResultId(uri=uri, value=report.result_id)]
    held = asyncio.ensure_future(
        client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=known)
        )
    )
    # a request sent after the pull is answered while the pull is still held
    hover = types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(0, 0))
    await client.text_document_hover_async(hover)
    assert not held.done()

    end = types.Position(len(path.read_text().splitlines()), 0)
    change_doc(client, uri, 2, types.Range(end, end), "\n// edited\n")
    answer = await asyncio.wait_for(held, 60)
    [changed] = [i for i in answer.items if i.uri == uri]
    assert changed.kind == "full" and changed.result_id != report.result_id
    assert [d.code for d in changed.items] == [d.code for d in report.items]


@pytest.mark.parametrize("client", ["neovim"], indirect=True)
async def test_a_held_pull_can_be_cancelled_and_the_server_serves_on(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/speech.rs")
    first = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    known = [types.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in first.items]
    held = asyncio.ensure_future(
        client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=known)
        )
    )
    await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(0, 0))
    )
    assert not held.done()
    held.cancel()  # pygls's client sends $/cancelRequest
    with pytest.raises(asyncio.CancelledError):
        await held
    again = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    assert [i.uri for i in again.items] == [uri]

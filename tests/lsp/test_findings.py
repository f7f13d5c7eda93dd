"""Real rule findings through the server: diagnostics, hover, quick fixes, fixAll, settings."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import (
    change_doc,
    diagnostics,
    eventually,
    initialize,
    open_doc,
    pull,
    pulls,
    uri_of,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

ASYNC = "async-policy-load-record"
CTC = "ctc-target-capacity"
INTERP = "interpolate-backward-mode"


def has(rule: str) -> object:
    return lambda ds: any(d.code == rule for d in ds)


def lacks(rule: str) -> object:
    return lambda ds: not any(d.code == rule for d in ds)


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # pushes
async def test_pushed_diagnostics_carry_the_version(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    waiting = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    uri = open_doc(client, crate / "src/rl.rs", version=7)
    params = await asyncio.wait_for(waiting, 20)
    assert params.uri == uri and params.version == 7


async def test_settings_change_alters_severity(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    [diag] = await diagnostics(client, uri, has(ASYNC))
    assert diag.severity == types.DiagnosticSeverity.Error
    client.set_configuration({"severity": {ASYNC: "hint"}}, section="panicLens")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    [diag] = await diagnostics(
        client, uri, lambda ds: [d.severity for d in ds] == [types.DiagnosticSeverity.Hint]
    )
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"panicLens": {"severity": {ASYNC: "off"}}})
    )
    assert await diagnostics(client, uri, lambda ds: not ds) == []


async def test_a_late_pull_never_undoes_a_newer_settings_change(
    client: LanguageClient, crate: Path
) -> None:
    """didChangeConfiguration(null) makes the server pull; while that pull is unanswered, a
    didChangeConfiguration with the settings in it turns the rule off. The pull, answered
    after, must not turn it back on: the newer change wins."""
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    await diagnostics(client, uri, has(ASYNC))
    client.protocol.fm.features.pop(types.WORKSPACE_CONFIGURATION, None)
    answered = asyncio.Event()

    @client.feature(types.WORKSPACE_CONFIGURATION)
    async def slow_configuration(params: types.ConfigurationParams) -> list[object]:
        await asyncio.sleep(0.5)
        answered.set()
        return [{"severity": {ASYNC: "hint"}} for _ in params.items]

    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"panicLens": {"severity": {ASYNC: "off"}}})
    )
    await asyncio.wait_for(answered.wait(), 10)
    await asyncio.sleep(0.3)  # the late answer reaches the server
    assert await diagnostics(client, uri, lambda ds: not ds) == []
    await asyncio.sleep(0.3)
    assert await diagnostics(client, uri, lambda ds: True) == []


async def test_documents_opened_before_the_settings_arrive_wait_for_them(
    client: LanguageClient, crate: Path
) -> None:
    """A client slow to answer workspace/configuration: the first diagnostics already use it."""
    client.protocol.fm.features.pop(types.WORKSPACE_CONFIGURATION, None)

    @client.feature(types.WORKSPACE_CONFIGURATION)
    async def slow_configuration(params: types.ConfigurationParams) -> list[object]:
        await asyncio.sleep(0.5)
        return [{"severity": {ASYNC: "hint"}} for _ in params.items]

    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    if pulls(client):
        first = await pull(client, uri)
    else:
        await eventually(lambda: client.published, lambda ps: any(p.uri == uri for p in ps))
        first = next(p for p in client.published if p.uri == uri).diagnostics
    assert [d.severity for d in first if d.code == ASYNC] == [types.DiagnosticSeverity.Hint]


async def test_workspace_scan_reports_unopened_files(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate)
    speech = uri_of(crate / "src/speech.rs")
    if pulls(client):
        report = await eventually(
            lambda: client.workspace_diagnostic_async(
                types.WorkspaceDiagnosticParams(previous_result_ids=[])
            ),
            lambda r: any(i.uri == speech and i.items for i in r.items),
        )
        [item] = [i for i in report.items if i.uri == speech]
        assert [d.code for d in item.items] == [CTC] and item.version is None
    else:
        found = await eventually(lambda: client.diagnostics.get(speech), lambda d: bool(d))
        assert [d.code for d in found] == [CTC]


async def test_cargo_metadata_change_reanalyses_open_files(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    await diagnostics(client, uri, has(ASYNC))
    manifest = crate / "Cargo.toml"
    table = (
        '\n[package.metadata.panic-lens]\nseverity = { "async-policy-load-record" = "warning" }\n'
    )
    manifest.write_text(manifest.read_text() + table)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri_of(manifest)))
    )
    [diag] = await diagnostics(
        client, uri, lambda ds: [d.severity for d in ds] == [types.DiagnosticSeverity.Warning]
    )
    assert diag.code == ASYNC
    assert uri_of(manifest) not in client.diagnostics  # the manifest is not analysed as Rust


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # pushes
async def test_a_burst_of_keystrokes_is_not_analysed_per_keystroke(
    client: LanguageClient, crate: Path
) -> None:
    """No timer: the first keystroke is analysed at once, the ones that arrived meanwhile once."""
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    await diagnostics(client, uri, has(ASYNC))
    before = len(client.published)  # type: ignore[attr-defined]
    for version, char in enumerate("typed", start=2):  # back to back, as fast typing sends them
        end = types.Position(0, version)  # after "//!" and what was typed so far
        change_doc(client, uri, version, types.Range(end, end), char)
    published = client.published  # type: ignore[attr-defined]
    await eventually(lambda: published[-1], lambda p: p.version == 6)
    later = published[before:]
    versions = [p.version for p in later]
    assert versions[-1] == 6 and versions == sorted(set(versions)) and len(versions) <= 2
    assert all([d.code for d in p.diagnostics] == [ASYNC] for p in later)

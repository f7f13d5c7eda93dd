"""Protocol machinery end to end: capabilities, encoding, guards, settings, records, scan."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from lsp_helpers import (
    CLIENTS,
    actions_for,
    diagnostics,
    eventually,
    initialize,
    make_crate,
    open_doc,
    preset,
    pulls,
    uri_of,
)
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

CLEAN = 'fn main() {\n    println!("nothing to see");\n}\n'


async def test_capabilities_follow_the_client(client: LanguageClient, tmp_path: Path) -> None:
    result = await initialize(client, make_crate(tmp_path, {}))
    caps = result.capabilities
    sync = caps.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental and sync.save
    expected = "utf-8" if preset(client) == "neovim" else "utf-16"
    assert caps.position_encoding == expected
    if pulls(client):
        assert caps.diagnostic_provider is not None
        assert caps.diagnostic_provider.identifier == "panic-lens"
        assert caps.diagnostic_provider.workspace_diagnostics
    else:
        assert caps.diagnostic_provider is None  # never both push and pull for one client
    assert isinstance(caps.code_action_provider, types.CodeActionOptions)
    assert "source.fixAll.panic-lens" in (caps.code_action_provider.code_action_kinds or [])
    assert caps.code_action_provider.resolve_provider
    assert caps.execute_command_provider is not None
    assert set(caps.execute_command_provider.commands) == {
        "panic-lens.explainPanic",
        "panic-lens.showRecord",
        "panic-lens.scanWorkspace",
    }


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_utf32_first_offer_still_gets_utf8_or_utf16(
    client: LanguageClient, tmp_path: Path
) -> None:
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-32", "utf-16"])
    )
    result = await initialize(client, make_crate(tmp_path, {}), capabilities=caps)
    assert result.capabilities.position_encoding == "utf-16"


async def test_clean_file_gets_empty_diagnostics_open_and_close(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = make_crate(tmp_path, {})
    await initialize(client, root, {"scope": "openFiles"})
    path = root / "src" / "unsaved.rs"  # never written to disk
    uri = open_doc(client, path, CLEAN, version=3)
    assert await diagnostics(client, uri, lambda d: True) == []
    waiting = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    if not pulls(client):
        closed = await asyncio.wait_for(waiting, 20)
        assert closed.uri == uri and list(closed.diagnostics) == []


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_invalid_settings_give_a_message_then_defaults(
    client: LanguageClient, tmp_path: Path
) -> None:
    options = {
        "panicLens": {
            "scope": "everywhere",
            "severity": {"no-such-rule": "error"},
            "ctcCapacity": 9000,
        }
    }
    await initialize(client, make_crate(tmp_path, {}), options)
    messages = await eventually(lambda: client.messages, lambda m: len(m) > 0)
    text = " ".join(m.message for m in messages)
    assert "settings.scope" in text and "everywhere" in text
    assert "settings.severity" in text and "no-such-rule" in text
    assert all(m.type == types.MessageType.Warning for m in messages)


async def test_bad_record_is_reported_once_and_diagnostics_keep_flowing(
    client: LanguageClient, tmp_path: Path
) -> None:
    records = tmp_path / "records"
    records.mkdir()
    (records / "broken.json").write_text('{"record": {"id": "x", "errorMessage": 3}')
    (records / "wrong.json").write_text(json.dumps({"record": {"id": "y"}}))
    root = make_crate(tmp_path / "ws", {"src/main.rs": CLEAN})
    await initialize(client, root, {"records": [str(records)], "scope": "openFiles"})
    shown = await eventually(lambda: client.messages, lambda m: len(m) > 0)
    assert len(shown) == 1 and shown[0].type == types.MessageType.Error
    assert "record error" in shown[0].message and "details in the log" in shown[0].message
    uri = open_doc(client, root / "src/main.rs")
    assert await diagnostics(client, uri, lambda d: True) == []
    logged = " ".join(m.message for m in client.log_messages)
    assert "broken.json" in logged and "wrong.json" in logged
    assert len(client.messages) == 1


async def test_workspace_scan_reports_progress(client: LanguageClient, tmp_path: Path) -> None:
    files = {f"src/m{i}.rs": CLEAN for i in range(45)}
    await initialize(client, make_crate(tmp_path, files))
    reports = await eventually(
        lambda: client.progress_reports,
        lambda r: any(v and isinstance(v[-1], types.WorkDoneProgressEnd) for v in r.values()),
    )
    [values] = [v for t, v in reports.items() if str(t).startswith("panic-lens/scan")]
    assert isinstance(values[0], types.WorkDoneProgressBegin)
    assert "scanning" in values[0].title
    middle = [v for v in values if isinstance(v, types.WorkDoneProgressReport)]
    assert [m.message for m in middle] == ["20/45 files", "40/45 files"]
    assert values[-1].message == "45 files, 0 findings"


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_open_files_scope_skips_the_scan(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, make_crate(tmp_path, {"src/main.rs": CLEAN}), {"scope": "openFiles"})
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.explainPanic", arguments=["hello"])
    )
    assert result["matches"] == result["ruleMatches"] == []
    assert client.progress_reports == {}


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_watched_rust_file_change_is_analysed(client: LanguageClient, tmp_path: Path) -> None:
    root = make_crate(tmp_path, {"src/main.rs": CLEAN})
    await initialize(client, root)
    await eventually(
        lambda: client.progress_reports,
        lambda r: any(v and isinstance(v[-1], types.WorkDoneProgressEnd) for v in r.values()),
    )
    extra = root / "src" / "extra.rs"
    extra.write_text(CLEAN)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri_of(extra), type=types.FileChangeType.Created)]
        )
    )
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.scanWorkspace", arguments=[])
    )
    assert result == {"files": 2, "findings": 0}


async def test_watchers_registered_and_record_changes_reload(
    client: LanguageClient, tmp_path: Path
) -> None:
    records = tmp_path / "records"
    records.mkdir()
    root = make_crate(tmp_path / "ws", {"src/main.rs": CLEAN})
    await initialize(client, root, {"records": [str(records)], "scope": "openFiles"})
    uri = open_doc(client, root / "src/main.rs")
    await diagnostics(client, uri, lambda d: True)
    registrations = getattr(client, "registrations", [])
    if preset(client) == "vscode":  # dynamic registration allowed; it follows the settings
        [reg] = await eventually(lambda: registrations, lambda r: len(r) > 0)
        globs = [w["globPattern"] for w in reg.register_options["watchers"]]
        assert globs[:3] == ["**/*.rs", "**/Cargo.toml", "**/Cargo.lock"]
        assert globs[3] == f"{records}/**/*"
    else:
        assert registrations == []
    assert client.messages == []
    bad = records / "late.json"
    bad.write_text("{not json")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri_of(bad), type=types.FileChangeType.Created)]
        )
    )
    [shown] = await eventually(lambda: client.messages, lambda m: len(m) > 0)
    assert "late.json" in shown.message
    assert await diagnostics(client, uri, lambda d: True) == []


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # capabilities given below
async def test_client_without_resolve_gets_edits_inline(
    client: LanguageClient, crate: Path
) -> None:
    caps = client_capabilities(CLIENTS["vscode"])
    assert caps.text_document and caps.text_document.code_action
    caps.text_document.code_action.resolve_support = None
    await initialize(client, crate, {"scope": "openFiles"}, capabilities=caps)
    uri = open_doc(client, crate / "src/rl.rs")
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    actions = await actions_for(client, uri, diag)
    fixes = [a for a in actions if a.data and a.data.get("action") in ("fix", "allow")]
    assert fixes and all(a.edit is not None and a.edit.changes for a in fixes)


async def test_tcp_mode_on_loopback(unused_tcp_port: int) -> None:
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "panic_lens",
        "serve",
        "--tcp",
        str(unused_tcp_port),
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        reader, writer = await eventually(
            lambda: _connect(unused_tcp_port), lambda pair: pair is not None
        )
        for message in [
            {"id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"id": 2, "method": "shutdown"},
            {"method": "exit"},
        ]:
            body = json.dumps({"jsonrpc": "2.0", **message}).encode()
            writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        data = b""
        while b'"id": 2' not in data:
            data += await asyncio.wait_for(reader.read(4096), 20)
        assert b'"serverInfo": {"name": "panic-lens"' in data
        writer.close()
        assert await asyncio.wait_for(server.wait(), 20) == 0
    finally:
        if server.returncode is None:
            server.kill()


async def _connect(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    try:
        return await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return None


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # capabilities given below
async def test_show_record_without_show_document_sends_the_panic_site_link(
    client: LanguageClient, tmp_path: Path
) -> None:
    caps = client_capabilities("neovim@v0.7.0")  # no window/showDocument
    await initialize(client, make_crate(tmp_path, {}), {"scope": "openFiles"}, capabilities=caps)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.showRecord", arguments=["22a18ddf8713058a"])
    )
    assert result["shown"] is False and client.shown_documents == []
    [message] = await eventually(lambda: client.messages, lambda m: len(m) > 0)
    assert result["link"] in message.message
    assert result["link"].startswith("https://github.com/tracel-ai/burn/blob/")


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # progress is client-independent
async def test_scan_stops_when_the_user_cancels(client: LanguageClient, tmp_path: Path) -> None:
    files = {f"src/m{i}.rs": CLEAN * 20 for i in range(1000)}
    await initialize(client, make_crate(tmp_path, files))
    token = await eventually(lambda: list(client.progress_reports), lambda t: len(t) > 0)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token[0]))
    reports = await eventually(
        lambda: client.progress_reports[token[0]],
        lambda r: bool(r) and isinstance(r[-1], types.WorkDoneProgressEnd),
    )
    assert reports[0].cancellable
    done = int(reports[-1].message.split()[0])
    assert done < 1000 and reports[-1].message.endswith(f"(stopped after {done} of 1000)")


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # pushes scan results
async def test_workspace_folders_added_and_removed(client: LanguageClient, crate: Path) -> None:
    empty = make_crate(crate.parent / "empty", {"src/main.rs": CLEAN})
    await initialize(client, empty)
    speech = uri_of(crate / "src/speech.rs")
    added = types.WorkspaceFolder(uri=uri_of(crate), name="crate")
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[added], removed=[])
        )
    )
    found = await eventually(lambda: client.diagnostics.get(speech), lambda d: bool(d))
    assert [d.code for d in found] == ["ctc-target-capacity"]
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[], removed=[added])
        )
    )
    await eventually(lambda: client.diagnostics.get(speech), lambda d: d is not None and not d)

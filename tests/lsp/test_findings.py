"""Real rule findings through the server: diagnostics, hover, quick fixes, fixAll, settings."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import (
    actions_for,
    change_doc,
    diagnostics,
    edits_of,
    encoding_of,
    eventually,
    initialize,
    open_doc,
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


async def test_diagnostic_fields_on_open(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    [diag] = await diagnostics(client, uri, has(ASYNC))
    assert diag.source == "panic-lens" and diag.severity == types.DiagnosticSeverity.Error
    assert diag.code_description is not None
    assert diag.code_description.href.endswith("docs/rules/async-policy-load-record.md")
    assert (diag.range.start.line, diag.range.start.character) == (11, 11)
    assert [r.message for r in diag.related_information or []] == [
        "the AsyncPolicy: AsyncPolicy::new(..) on line 11"
    ]
    assert diag.related_information[0].location.range.start == types.Position(10, 17)
    assert diag.data["rule"] == ASYNC and diag.data["records"] == ["2d90c97bb9ee521c"]
    assert diag.data["fixes"] == ["async-policy-preload", "async-policy-update-state"]
    if not pulls(client):
        assert client.diagnostics[uri] and client.diagnostics[uri][0].code == ASYNC


async def test_change_and_close(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    path = crate / "src/rl.rs"
    uri = open_doc(client, path)
    await diagnostics(client, uri, has(ASYNC))
    line = path.read_text().splitlines()[11]
    col = line.index("actors.load_record")
    # an incremental edit: `actors.load_record(record)` -> `actors`
    change_doc(
        client, uri, 2, types.Range(types.Position(11, col + 6), types.Position(11, len(line))), ""
    )
    assert await diagnostics(client, uri, lacks(ASYNC)) == []
    change_doc(
        client,
        uri,
        3,
        types.Range(types.Position(11, col + 6), types.Position(11, col + 6)),
        ".load_record(record)",
    )
    await diagnostics(client, uri, has(ASYNC))
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    if not pulls(client):
        await eventually(
            lambda: client.diagnostics.get(uri), lambda d: d is not None and len(d) == 0
        )


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # pushes
async def test_pushed_diagnostics_carry_the_version(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    waiting = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    uri = open_doc(client, crate / "src/rl.rs", version=7)
    params = await asyncio.wait_for(waiting, 10)
    assert params.uri == uri and params.version == 7


async def test_hover_on_flagged_call_shows_facts_and_record_knowledge(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    await diagnostics(client, uri, has(ASYNC))
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(11, 14))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "**Will panic:** load_record on burn's AsyncPolicy always panics" in text
    assert "receiver `actors` is burn's AsyncPolicy" in text  # a computed fact
    assert "What record `2d90c97bb9ee521c` says" in text
    assert "AsyncPolicy::load_record is intentionally unimplemented" in text  # documentation
    assert "```rust\n// before\nlet policy = AsyncPolicy::new(base_policy);" in text
    assert "AsyncPolicy::new takes two arguments" in text  # advisory next to exampleFix
    # this record's panic half is about ctc_loss, not AsyncPolicy: no ctc panic site here
    assert "Panic site" not in text


async def test_hover_on_ctc_links_the_panic_site_and_unflagged_calls_show_facts(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/speech.rs")
    await diagnostics(client, uri, has(CTC))
    flagged = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(16, 6))
    )
    assert flagged is not None
    text = flagged.contents.value  # type: ignore[union-attr]
    assert "targets width S = 5000" in text
    assert "[crates/burn-cubecl/src/kernel/ctc.rs:307](https://github.com/tracel-ai/burn/" in text
    assert "What record" not in text  # both bound records' knowledge is about other rules
    safe = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(24, 6))
    )
    assert safe is not None
    assert "within the 4095 limit" in safe.contents.value  # type: ignore[union-attr]
    assert "Will panic" not in safe.contents.value  # type: ignore[union-attr]


async def test_interpolate_hover_has_the_mode_advisory(client: LanguageClient, crate: Path) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/resize.rs")
    [diag] = await diagnostics(client, uri, has(INTERP))
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), diag.range.start)
    )
    text = hover.contents.value  # type: ignore[union-attr]
    assert "Panic site" in text and "What record `22a18ddf8713058a` says" in text
    assert "casting to f32 does not help" in text


@pytest.mark.parametrize(
    ("file", "rule", "title"),
    [
        ("src/rl.rs", ASYNC, "inner policy"),
        ("src/resize.rs", INTERP, "changes"),
    ],
)
async def test_quick_fix_applied_removes_the_diagnostic(
    client: LanguageClient, crate: Path, file: str, rule: str, title: str
) -> None:
    result = await initialize(client, crate, {"scope": "openFiles"})
    path = crate / file
    uri = open_doc(client, path)
    [diag] = await diagnostics(client, uri, has(rule))
    actions = await actions_for(client, uri, diag)
    [fix] = [a for a in actions if a.is_preferred] or [actions[0]]
    assert fix.kind == types.CodeActionKind.QuickFix and list(fix.diagnostics or []) == [diag]
    assert title in fix.title.lower()
    edits = await edits_of(client, fix, uri)
    change_doc(client, uri, 2, edits=edits, encoding=encoding_of(result))
    assert await diagnostics(client, uri, lacks(rule)) == []


async def test_suppression_action_inserts_the_comment(client: LanguageClient, crate: Path) -> None:
    result = await initialize(client, crate, {"scope": "openFiles"})
    path = crate / "src/speech.rs"
    uri = open_doc(client, path)
    [diag] = await diagnostics(client, uri, has(CTC))
    actions = await actions_for(client, uri, diag)
    [allow] = [a for a in actions if a.title == f"Allow {CTC} here"]
    [edit] = await edits_of(client, allow, uri)
    assert edit.range.start == types.Position(16, 0) == edit.range.end
    assert edit.new_text.startswith(f"    // panic-lens: allow({CTC}) ")  # the call's indent
    change_doc(client, uri, 2, edits=[edit], encoding=encoding_of(result))
    assert await diagnostics(client, uri, lambda ds: not ds) == []


async def test_record_solutions_become_show_record_actions(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    [diag] = await diagnostics(client, uri, has(ASYNC))
    actions = await actions_for(client, uri, diag)
    solutions = [a for a in actions if a.title.startswith("Record 2d90c97bb9ee521c: ")]
    assert len(solutions) == 3 and all(a.edit is None for a in solutions)
    assert solutions[0].command is not None
    assert solutions[0].command.command == "panic-lens.showRecord"
    assert list(solutions[0].command.arguments or []) == ["2d90c97bb9ee521c"]


async def test_fix_all_applies_every_safe_fix(client: LanguageClient, crate: Path) -> None:
    result = await initialize(client, crate, {"scope": "openFiles"})
    rl, resize = (crate / "src/rl.rs").read_text(), (crate / "src/resize.rs").read_text()
    both = crate / "src/both.rs"
    both.write_text(rl.replace("use burn::rl::", resize.split("\n", 2)[2] + "\nuse burn::rl::"))
    uri = open_doc(client, both)
    await diagnostics(client, uri, lambda ds: has(ASYNC)(ds) and has(INTERP)(ds))
    only = [types.CodeActionKind.SourceFixAll]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    [fix_all] = actions or []
    assert fix_all.kind == "source.fixAll.panic-lens"
    edits = await edits_of(client, fix_all, uri)
    change_doc(client, uri, 2, edits=edits, encoding=encoding_of(result))
    # the AsyncPolicy fix keeps behaviour and is applied; the interpolation-mode fix changes
    # results, so fixAll leaves it for the user to choose
    left = await diagnostics(client, uri, lacks(ASYNC))
    assert [d.code for d in left] == [INTERP]


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


@pytest.mark.parametrize("prefix", ["/* 🦀🦀 */ ", "/* 名前は */ ", "/* é🦀中 */ "])
async def test_ranges_on_lines_with_emoji_and_cjk(
    client: LanguageClient, crate: Path, prefix: str
) -> None:
    result = await initialize(client, crate, {"scope": "openFiles"})
    encoding = encoding_of(result)
    path = crate / "src/rl.rs"
    text = path.read_text().replace("    actors.load_record", f"    {prefix}actors.load_record")
    uri = open_doc(client, path, text)
    [diag] = await diagnostics(client, uri, has(ASYNC))
    line = text.splitlines()[11]
    before = line[: line.index("load_record")]
    units = before.encode("utf-16-le" if encoding == "utf-16" else "utf-8")
    start = len(units) // (2 if encoding == "utf-16" else 1)
    assert diag.range.start == types.Position(11, start)
    assert diag.range.end == types.Position(11, start + len("load_record"))
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(11, start + 1))
    )
    assert hover is not None and hover.range == diag.range


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


@pytest.mark.parametrize("client", ["neovim"], indirect=True)  # pulls
async def test_pull_reports_unchanged_with_the_previous_result_id(
    client: LanguageClient, crate: Path
) -> None:
    await initialize(client, crate, {"scope": "openFiles"})
    uri = open_doc(client, crate / "src/rl.rs")
    ident = types.TextDocumentIdentifier(uri)
    first = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(ident))
    assert first.kind == "full" and first.result_id
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(ident, previous_result_id=first.result_id)
    )
    assert again.kind == "unchanged" and again.result_id == first.result_id
    assert client.diagnostics == {}  # nothing was pushed to a pull client

"""Editing sessions on one shared server per client: diagnostics, hover, code actions, ranges.

One server per imitated client serves every test here (each test opens its own copy of the
fixture crate), which keeps the suite fast; tests that change settings start their own server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import (
    actions_for,
    change_doc,
    diagnostics,
    edits_of,
    eventually,
    make_crate,
    open_doc,
    pulls,
    send_raw,
    uri_of,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

ASYNC = "async-policy-load-record"
CTC = "ctc-target-capacity"
INTERP = "interpolate-backward-mode"
CLEAN = 'fn main() {\n    println!("nothing to see");\n}\n'
ROUTER = "router-unsupported-dtype"


def has(rule: str) -> object:
    return lambda ds: any(d.code == rule for d in ds)


def lacks(rule: str) -> object:
    return lambda ds: not any(d.code == rule for d in ds)


async def test_diagnostic_fields_on_open(shared: LanguageClient, crate: Path) -> None:
    uri = open_doc(shared, crate / "src/rl.rs")
    [diag] = await diagnostics(shared, uri, has(ASYNC))
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
    if not pulls(shared):
        assert shared.diagnostics[uri] and shared.diagnostics[uri][0].code == ASYNC


async def test_change_and_close(shared: LanguageClient, crate: Path) -> None:
    path = crate / "src/rl.rs"
    uri = open_doc(shared, path)
    await diagnostics(shared, uri, has(ASYNC))
    line = path.read_text().splitlines()[11]
    col = line.index("actors.load_record")
    # an incremental edit: `actors.load_record(record)` -> `actors`
    change_doc(
        shared, uri, 2, types.Range(types.Position(11, col + 6), types.Position(11, len(line))), ""
    )
    assert await diagnostics(shared, uri, lacks(ASYNC)) == []
    change_doc(
        shared,
        uri,
        3,
        types.Range(types.Position(11, col + 6), types.Position(11, col + 6)),
        ".load_record(record)",
    )
    await diagnostics(shared, uri, has(ASYNC))
    shared.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    if not pulls(shared):
        await eventually(
            lambda: shared.diagnostics.get(uri), lambda d: d is not None and len(d) == 0
        )


async def test_hover_on_flagged_call_shows_facts_and_record_knowledge(
    shared: LanguageClient, crate: Path
) -> None:
    uri = open_doc(shared, crate / "src/rl.rs")
    await diagnostics(shared, uri, has(ASYNC))
    hover = await shared.text_document_hover_async(
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
    shared: LanguageClient, crate: Path
) -> None:
    uri = open_doc(shared, crate / "src/speech.rs")
    await diagnostics(shared, uri, has(CTC))
    flagged = await shared.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(16, 6))
    )
    assert flagged is not None
    text = flagged.contents.value  # type: ignore[union-attr]
    assert "targets width S = 5000" in text
    assert "[crates/burn-cubecl/src/kernel/ctc.rs:307](https://github.com/tracel-ai/burn/" in text
    assert "What record" not in text  # both bound records' knowledge is about other rules
    safe = await shared.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(24, 6))
    )
    assert safe is not None
    assert "within the 4095 limit" in safe.contents.value  # type: ignore[union-attr]
    assert "Will panic" not in safe.contents.value  # type: ignore[union-attr]


async def test_interpolate_hover_has_the_mode_advisory(shared: LanguageClient, crate: Path) -> None:
    uri = open_doc(shared, crate / "src/resize.rs")
    [diag] = await diagnostics(shared, uri, has(INTERP))
    hover = await shared.text_document_hover_async(
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
    shared: LanguageClient, crate: Path, file: str, rule: str, title: str
) -> None:
    path = crate / file
    uri = open_doc(shared, path)
    [diag] = await diagnostics(shared, uri, has(rule))
    actions = await actions_for(shared, uri, diag)
    [fix] = [a for a in actions if a.is_preferred] or [actions[0]]
    assert fix.kind == types.CodeActionKind.QuickFix and list(fix.diagnostics or []) == [diag]
    assert title in fix.title.lower()
    edits = await edits_of(shared, fix, uri)
    change_doc(shared, uri, 2, edits=edits, encoding=shared.encoding)
    assert await diagnostics(shared, uri, lacks(rule)) == []


@pytest.mark.parametrize(
    ("file", "rule", "row"), [("src/speech.rs", CTC, 16), ("src/tokens.rs", ROUTER, 10)]
)
async def test_suppression_action_inserts_the_comment(
    shared: LanguageClient, crate: Path, file: str, rule: str, row: int
) -> None:
    """ctc and router findings have no machine fix: their quick fix is the allow comment."""
    path = crate / file
    uri = open_doc(shared, path)
    [diag] = await diagnostics(shared, uri, has(rule))
    actions = await actions_for(shared, uri, diag)
    assert not [a for a in actions if a.is_preferred]
    [allow] = [a for a in actions if a.title == f"Allow {rule} here"]
    [edit] = await edits_of(shared, allow, uri)
    assert edit.range.start == types.Position(row, 0) == edit.range.end
    indent = path.read_text().splitlines()[row]
    indent = indent[: len(indent) - len(indent.lstrip())]
    assert edit.new_text.startswith(f"{indent}// panic-lens: allow({rule}) ")
    change_doc(shared, uri, 2, edits=[edit], encoding=shared.encoding)
    assert await diagnostics(shared, uri, lambda ds: not ds) == []


async def test_router_hover_shows_knowledge_with_the_unsigned_advisory(
    shared: LanguageClient, crate: Path
) -> None:
    uri = open_doc(shared, crate / "src/tokens.rs")
    [diag] = await diagnostics(shared, uri, has(ROUTER))
    hover = await shared.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), diag.range.start)
    )
    text = hover.contents.value  # type: ignore[union-attr]
    assert "**Will panic:** moving a U32 tensor from capture device `encoder`" in text
    assert "What record `98e8605c71c1dd9c` says" in text
    assert "Unsigned integer tensors (U8, U16, U32, U64) also reach the unimplemented!()" in text
    assert "Panic site" not in text  # that record's panic half is the ctc assert


async def test_record_solutions_become_show_record_actions(
    shared: LanguageClient, crate: Path
) -> None:
    uri = open_doc(shared, crate / "src/rl.rs")
    [diag] = await diagnostics(shared, uri, has(ASYNC))
    actions = await actions_for(shared, uri, diag)
    solutions = [a for a in actions if a.title.startswith("Record 2d90c97bb9ee521c: ")]
    assert len(solutions) == 2 and all(a.edit is None for a in solutions)
    assert solutions[0].command is not None
    assert solutions[0].command.command == "panic-lens.showRecord"
    assert list(solutions[0].command.arguments or []) == ["2d90c97bb9ee521c"]
    # the record's third solution says the pre-load pattern is the only way; burn's source
    # shows a second one, so it is not offered (the hover corrects it)
    assert not [a for a in actions if "only in-library path" in a.title]
    assert not [a for a in actions if "wrong" in a.title.lower()]


async def test_wrong_advice_is_no_action_and_the_hover_corrects_it(
    shared: LanguageClient, crate: Path
) -> None:
    uri = open_doc(shared, crate / "src/resize.rs")
    [diag] = await diagnostics(shared, uri, has(INTERP))
    actions = await actions_for(shared, uri, diag)
    titles = [a.title for a in actions]
    solutions = [t for t in titles if t.startswith("Record 22a18ddf8713058a: ")]
    # the record's four solutions but the one that blames the dtype (f32 is safest)
    assert len(solutions) == 3, titles
    assert not [t for t in titles if "f32" in t or "wrong" in t.lower()]
    hover = await shared.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), diag.range.start)
    )
    text = hover.contents.value  # type: ignore[union-attr]
    assert "(f32 is safest) on the current device **(wrong: see the note from panic-lens" in text
    assert "The cause is the interpolation mode, not the dtype" in text
    assert "casting to f32 does not help" in text


async def test_fix_all_applies_every_safe_fix(shared: LanguageClient, crate: Path) -> None:
    rl, resize = (crate / "src/rl.rs").read_text(), (crate / "src/resize.rs").read_text()
    both = crate / "src/both.rs"
    both.write_text(rl.replace("use burn::rl::", resize.split("\n", 2)[2] + "\nuse burn::rl::"))
    uri = open_doc(shared, both)
    await diagnostics(shared, uri, lambda ds: has(ASYNC)(ds) and has(INTERP)(ds))
    only = [types.CodeActionKind.SourceFixAll]
    actions = await shared.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    [fix_all] = actions or []
    assert fix_all.kind == "source.fixAll.panic-lens"
    edits = await edits_of(shared, fix_all, uri)
    change_doc(shared, uri, 2, edits=edits, encoding=shared.encoding)
    # the AsyncPolicy fix keeps behaviour and is applied; the interpolation-mode fix changes
    # results, so fixAll leaves it for the user to choose
    left = await diagnostics(shared, uri, lacks(ASYNC))
    assert [d.code for d in left] == [INTERP]


@pytest.mark.parametrize("prefix", ["/* 🦀🦀 */ ", "/* 名前は */ ", "/* é🦀中 */ "])
async def test_ranges_on_lines_with_emoji_and_cjk(
    shared: LanguageClient, crate: Path, prefix: str
) -> None:
    encoding = shared.encoding
    path = crate / "src/rl.rs"
    text = path.read_text().replace("    actors.load_record", f"    {prefix}actors.load_record")
    uri = open_doc(shared, path, text)
    [diag] = await diagnostics(shared, uri, has(ASYNC))
    line = text.splitlines()[11]
    before = line[: line.index("load_record")]
    units = before.encode("utf-16-le" if encoding == "utf-16" else "utf-8")
    start = len(units) // (2 if encoding == "utf-16" else 1)
    assert diag.range.start == types.Position(11, start)
    assert diag.range.end == types.Position(11, start + len("load_record"))
    hover = await shared.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(11, start + 1))
    )
    assert hover is not None and hover.range == diag.range


@pytest.mark.parametrize("shared", ["neovim"], indirect=True)  # pulls
async def test_pull_reports_unchanged_with_the_previous_result_id(
    shared: LanguageClient, crate: Path
) -> None:
    uri = open_doc(shared, crate / "src/rl.rs")
    ident = types.TextDocumentIdentifier(uri)
    first = await shared.text_document_diagnostic_async(types.DocumentDiagnosticParams(ident))
    assert first.kind == "full" and first.result_id
    again = await shared.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(ident, previous_result_id=first.result_id)
    )
    assert again.kind == "unchanged" and again.result_id == first.result_id
    assert shared.diagnostics == {}  # nothing was pushed to a pull shared


async def test_malformed_request_is_answered_and_server_lives_on(
    shared: LanguageClient, tmp_path: Path
) -> None:
    root = make_crate(tmp_path, {"src/main.rs": CLEAN})
    uri = open_doc(shared, root / "src/main.rs")
    bad = {"textDocument": {"uri": uri}, "range": "not a range", "context": {"diagnostics": [None]}}
    with pytest.raises(JsonRpcException) as info:
        await asyncio.wait_for(send_raw(shared, types.TEXT_DOCUMENT_CODE_ACTION, bad), 10)
    assert "invalid params for textDocument/codeAction" in str(info.value)
    hover = await shared.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 3))
    )
    assert hover is None  # answered: no burn API under the cursor


async def test_explain_command_finds_the_ctc_record(shared: LanguageClient, tmp_path: Path) -> None:
    log = (
        "running 1 test\nthread 'main' panicked at crates/burn-cubecl/src/kernel/ctc.rs:307:5:\n"
        "ctc_loss: 2 * max_target_len + 1 = 10001 exceeds the kernel's shared-memory alpha "
        "capacity (8192). Reduce target length or raise SHARED_ALPHA_CAPACITY.\n"
    )
    result = await shared.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.explainPanic", arguments=[log])
    )
    assert [m["record_id"] for m in result["matches"]] == ["2d90c97bb9ee521c"]
    assert result["matches"][0]["line_no"] == 3
    # the CLI's report: this record's knowledge half is about AsyncPolicy, so it says so
    assert result["markdown"].startswith("# panic-lens: Explain Panic Message\n\n```text\n")
    assert "knowledge half bound to: async-policy-load-record" in result["text"]


async def test_show_record_opens_a_markdown_document(
    shared: LanguageClient, tmp_path: Path
) -> None:
    result = await shared.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.showRecord", arguments=["2d90c97bb9ee521c"])
    )
    assert result["shown"] is True
    [shown] = shared.shown_documents
    assert shown.uri == result["uri"] and shown.uri.endswith(".md")
    text = Path(shown.uri.removeprefix("file://")).read_text()
    assert text.startswith("# Record 2d90c97bb9ee521c")
    assert "AsyncPolicy::new takes two arguments" in text  # the advisory next to exampleFix
    assert "https://github.com/tracel-ai/burn/blob/" in text


async def test_bad_command_arguments_get_an_error(shared: LanguageClient, tmp_path: Path) -> None:
    with pytest.raises(JsonRpcException) as info:
        await shared.workspace_execute_command_async(
            types.ExecuteCommandParams(command="panic-lens.showRecord", arguments=["nope"])
        )
    assert "no record with id 'nope'" in str(info.value)
    result = await shared.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.explainPanic", arguments=[{"text": "x"}])
    )
    assert result["matches"] == result["ruleMatches"] == []
    assert "No record's messagePattern matches this text." in result["text"]


async def test_requests_about_unknown_files_and_junk_data_are_answered(
    shared: LanguageClient, tmp_path: Path
) -> None:
    root = make_crate(tmp_path, {"src/main.rs": CLEAN})
    ghost = types.TextDocumentIdentifier(uri_of(root / "src/ghost.rs"))
    assert (
        await shared.text_document_hover_async(types.HoverParams(ghost, types.Position(0, 0)))
        is None
    )
    junk = types.CodeAction(title="x", data={"uri": 5, "action": "fix", "key": None})
    assert (await shared.code_action_resolve_async(junk)).edit is None
    uri = open_doc(shared, root / "src/main.rs")
    assert await diagnostics(shared, uri, lambda d: True) == []


async def test_failing_handlers_do_not_stop_the_server(shared: LanguageClient, crate: Path) -> None:
    ghost = types.VersionedTextDocumentIdentifier(
        uri=uri_of(crate / "src/never_opened.rs"), version=2
    )
    edit = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="x"
    )
    shared.text_document_did_change(types.DidChangeTextDocumentParams(ghost, [edit]))
    # pygls's own sync fails on a document that was never opened; it reports and carries on
    await eventually(lambda: shared.messages, lambda m: any("never_opened" in x.message for x in m))
    with pytest.raises(JsonRpcException):
        await shared.workspace_execute_command_async(
            types.ExecuteCommandParams(command="panic-lens.noSuchCommand", arguments=[])
        )
    uri = open_doc(shared, crate / "src/rl.rs")
    assert [d.code for d in await diagnostics(shared, uri, has(ASYNC))] == [ASYNC]


async def test_actions_for_a_selection_without_diagnostics(
    shared: LanguageClient, crate: Path
) -> None:
    """Some clients send no diagnostics in the context: the findings under the range count."""
    uri = open_doc(shared, crate / "src/rl.rs")
    await diagnostics(shared, uri, has(ASYNC))
    whole_lines = types.Range(types.Position(10, 0), types.Position(12, 0))
    found = await shared.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), whole_lines, types.CodeActionContext(diagnostics=[])
        )
    )
    titles = [a.title for a in found or []]
    assert f"Allow {ASYNC} here" in titles and any(t.startswith("Load the record") for t in titles)

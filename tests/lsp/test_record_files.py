"""Records files in the editor (lsp/record_files.py): each record's coverage, as `records check`
says it, on the record's `"id"` line; a broken record or half-typed JSON is an Error. The
editor's text is evaluated, not the file on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_helpers import change_doc, diagnostics, initialize, make_crate, open_doc, pull, pulls
from lsprotocol import types
from pytest_lsp import LanguageClient

REPO = Path(__file__).resolve().parents[2]
COVERED = json.loads((REPO / "records" / "011_3e5c9cb35b5db9ef.json").read_text())
INFO, ERROR = types.DiagnosticSeverity.Information, types.DiagnosticSeverity.Error
# Two burn panics of the shipped guards index that no hand-written rule is about: one a rule
# is derived from, one that cannot be reached from burn's public API.
DERIVABLE_SITE = "crates/burn-backend/src/backend/ops/int_tensor.rs:224"
UNREACHABLE_WHY = (
    "crates/burn-autodiff/src/checkpoint/builder.rs:230:"
    " AutodiffServer::backward (pub) has no caller that is public"
)


def envelope(rid: str, path: str, line: int, message: str, **more: Any) -> dict[str, Any]:
    record = {
        "id": rid,
        "schemaVersion": 2,
        "errorMessage": message,
        "messagePattern": message,
        "filePath": path,
        "lineNumber": line,
        **more,
    }
    return {"record": record, "datasetVersion": "2026-01-01T00:00:00Z"}


DERIVABLE = envelope(
    "aaaa000000000001",
    "crates/burn-backend/src/backend/ops/int_tensor.rs",
    224,
    "int_scatter with {other:?} update is not implemented",
)
UNREACHABLE = envelope(
    "aaaa000000000002",
    "crates/burn-autodiff/src/checkpoint/builder.rs",
    230,
    "Node {:?} is needed but never checkpointed",
)
BROKEN = {"record": {"id": "aaaa000000000003", "schemaVersion": 2, "messagePattern": "x"}}


def workspace(tmp_path: Path) -> tuple[Path, Path]:
    """A crate and, inside it, an empty records folder (named in the settings)."""
    root = make_crate(tmp_path / "ws", {"src/lib.rs": "fn main() {}\n"})
    records = root / "records"
    records.mkdir()
    return root, records


def shown(ds: list[types.Diagnostic]) -> list[tuple[int, object, object, str]]:
    by_line = sorted(ds, key=lambda d: d.range.start.line)
    return [(d.range.start.line, d.severity, d.code, d.message) for d in by_line]


async def test_each_record_says_which_rule_checks_it(
    client: LanguageClient, tmp_path: Path
) -> None:
    root, records = workspace(tmp_path)
    await initialize(client, root, {"scope": "openFiles", "records": ["records"]})
    path = records / "mixed.jsonl"
    path.write_text("")  # the editor's text is what counts
    lines = [json.dumps(obj) for obj in (COVERED, DERIVABLE, UNREACHABLE, BROKEN)]
    uri = open_doc(client, path, "\n".join(lines) + "\n")
    found = await diagnostics(client, uri, lambda ds: len(ds) == 4)
    assert {(d.source, d.range.start.character) for d in found} == {("panic-lens", 0)}
    assert shown(found) == [
        (
            0,
            INFO,
            "record-coverage",
            "record 3e5c9cb35b5db9ef: checked by the hand-written rule"
            " dropout-probability-range (shipped)",
        ),
        (
            1,
            INFO,
            "record-coverage",
            "record aaaa000000000001: checked by the derived rule"
            " derived-int-tensor-ops-int-scatter-update-other-implemented"
            f" (burn {DERIVABLE_SITE})",
        ),
        (
            2,
            INFO,
            "record-coverage",
            "record aaaa000000000002: no rule checks it (entry point not public): "
            + UNREACHABLE_WHY,
        ),
        (
            3,
            ERROR,
            "record-file",
            "record aaaa000000000003: errorMessage: required field is missing",
        ),
    ]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(1, 5)
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert text.startswith(
        f"```toml\n# derived from record aaaa000000000001 (burn {DERIVABLE_SITE})\n"
    )
    assert 'id = "derived-int-tensor-ops-int-scatter-update-other-implemented"' in text


async def test_half_typed_json_is_one_error_on_its_line(
    client: LanguageClient, tmp_path: Path
) -> None:
    root, records = workspace(tmp_path)
    await initialize(client, root, {"scope": "openFiles", "records": [str(records)]})
    text = '{\n  "record": {\n    "id": "aaaa000000000004",\n    "schemaVersion": 2,\n    "err'
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        line, column, msg = exc.lineno - 1, exc.colno, exc.msg
    uri = open_doc(client, records / "typing.json", text)
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert (diag.range.start.line, diag.severity, diag.code) == (line, ERROR, "record-file")
    assert diag.message == f"invalid JSON: {msg} (column {column})"


async def test_an_edit_updates_the_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    root, records = workspace(tmp_path)
    await initialize(client, root, {"scope": "openFiles", "records": [str(records)]})
    path = records / "one.json"
    good = json.dumps(COVERED, indent=2)
    path.write_text(good)
    uri = open_doc(client, path)
    id_line = good.splitlines().index('    "id": "3e5c9cb35b5db9ef",')
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert (diag.range.start.line, diag.code) == (id_line, "record-coverage")
    whole = types.Range(types.Position(0, 0), types.Position(len(good.splitlines()), 0))
    unreachable = json.dumps(UNREACHABLE, indent=2)
    change_doc(client, uri, 2, whole, unreachable)
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1 and "no rule" in ds[0].message)
    assert diag.message.startswith("record aaaa000000000002: no rule checks it")
    end = types.Position(len(unreachable.splitlines()), 0)
    wrong = unreachable.replace('"schemaVersion": 2', '"schemaVersion": "2"')
    change_doc(client, uri, 3, types.Range(types.Position(0, 0), end), wrong)
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1 and ds[0].severity == ERROR)
    line = wrong.splitlines().index('    "schemaVersion": "2",')
    assert (diag.code, diag.range.start.line) == ("record-file", line)  # the field's line
    assert diag.message.startswith("record aaaa000000000002: schemaVersion: ")
    end = types.Position(len(wrong.splitlines()), 0)
    change_doc(client, uri, 4, types.Range(types.Position(0, 0), end), "{")
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1 and "JSON" in ds[0].message)
    assert (diag.code, diag.range.start.line) == ("record-file", 0)


async def test_json_outside_the_records_folders_is_left_alone(
    client: LanguageClient, tmp_path: Path
) -> None:
    root, records = workspace(tmp_path)
    await initialize(client, root, {"scope": "openFiles", "records": [str(records)]})
    uri = open_doc(client, root / "other.json", json.dumps(BROKEN))
    inside = open_doc(client, records / "r.json", json.dumps(BROKEN))
    await diagnostics(client, inside, lambda ds: len(ds) == 1)  # handled after other.json
    if pulls(client):
        assert await pull(client, uri) == []
    else:
        assert uri not in client.diagnostics


async def test_a_records_folder_added_in_the_settings_is_evaluated(
    client: LanguageClient, tmp_path: Path
) -> None:
    root, records = workspace(tmp_path)
    await initialize(client, root, {"scope": "openFiles"})
    uri = open_doc(client, records / "r.json", json.dumps(COVERED))
    if pulls(client):
        assert await pull(client, uri) == []
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"panicLens": {"records": [str(records)]}})
    )
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert diag.message == (
        "record 3e5c9cb35b5db9ef: checked by the hand-written rule"
        " dropout-probability-range (shipped)"
    )


async def test_a_package_json_opened_and_closed_gets_nothing(
    client: LanguageClient, tmp_path: Path
) -> None:
    """What an editor sending every JSON file causes for one outside the records folders: no
    diagnostics, nothing logged at warning or above, and (workspace scope) no analysis of it
    as Rust when it is closed."""
    root, records = workspace(tmp_path)
    await initialize(client, root, {"records": ["records"]})
    package = root / "package.json"
    package.write_text('{"name": "app", "scripts": {"build": "tsc"}}\n')
    uri = open_doc(client, package)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    inside = open_doc(client, records / "r.json", json.dumps(COVERED))
    await diagnostics(client, inside, lambda ds: len(ds) == 1)  # handled after package.json
    if pulls(client):
        answer = await client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        assert uri not in {item.uri for item in answer.items}
    else:
        assert not client.diagnostics.get(uri)
    loud = [m for m in client.log_messages if m.type <= types.MessageType.Warning]
    assert loud == [], [m.message for m in loud]
    assert client.messages == []

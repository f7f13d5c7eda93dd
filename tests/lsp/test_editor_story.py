"""The editor tells the story the commands tell (tests/unit/commands/test_one_story.py): with
a hand-written rule in `my-rules` and a record of its panic site in `myrecords`, both named
only in Cargo.toml, the finding is the hand-written rule's and cites the record, the hover
shows the record's panic site and the rule inline (a user rule has no page: nothing links
one), and the records file says the same coverage as `records check`."""

from __future__ import annotations

import shutil
from pathlib import Path

from lsp_helpers import diagnostics, initialize, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient

DATA = Path(__file__).parents[1] / "unit" / "commands" / "data" / "one_story"
RECORD = "a5a5a5a5a5a5a5a5"
RULE = "swap-dims-bounds"
MANIFEST = (
    '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n'
    '[package.metadata.panic-lens]\nrules = ["my-rules"]\nrecords = ["myrecords"]\n'
)


async def test_the_editor_reads_cargo_tomls_rules_and_records(
    client: LanguageClient, tmp_path: Path
) -> None:
    app = Path(shutil.copytree(DATA, tmp_path / "app"))
    (app / "Cargo.toml").write_text(MANIFEST)
    await initialize(client, app, {"scope": "openFiles"})
    uri = open_doc(client, app / "src" / "main.rs")
    [diag] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert diag.code == RULE
    assert isinstance(diag.data, dict) and diag.data["records"] == [RECORD]
    assert diag.code_description is None  # the rule has no page: no link to one

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=diag.range.start
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert f"**Panic site** (record `{RECORD}`)" in text
    assert f"**Rule `{RULE}`:** Tensor::swap_dims panics" in text
    assert "panic site in burn: crates/burn-tensor/src/tensor/api/check.rs" in text
    assert "docs/rules/" not in text and "file://" not in text

    log = (
        "=== Tensor Operation Error ===\n  Operation: 'Swap Dims'\n  Reason:\n"
        "    1. BoundsError: dimension 5 out of bounds: 0..3 \n"
    )
    explained = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="panic-lens.explainPanic", arguments=[log])
    )
    assert explained["text"].startswith(f"record {RECORD}  (line 1)")
    assert f"panic half: checked by the hand-written rule {RULE} (" in explained["text"]

    records_file = app / "myrecords" / "dim-bounds.json"
    uri = open_doc(client, records_file)
    [coverage] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert coverage.code == "record-coverage"
    assert coverage.message == (
        f"record {RECORD}: checked by the hand-written rule {RULE}"
        f" ({app / 'my-rules' / (RULE + '.toml')})"
    )


async def test_a_hand_written_rule_added_later_replaces_the_derived_one(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Without the rule the record's panic is checked by the rule derived from it; once the
    `rules` setting names the hand-written rule, that rule checks it and the derived one is
    gone (derived again against the rules in use, as `check` derives after reading them)."""
    app = Path(shutil.copytree(DATA, tmp_path / "app"))
    (app / "Cargo.toml").write_text(MANIFEST.replace('rules = ["my-rules"]\n', ""))
    await initialize(client, app, {"scope": "openFiles"})
    uri = open_doc(client, app / "src" / "main.rs")
    [derived] = await diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert str(derived.code).startswith("derived-")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"panicLens": {"scope": "openFiles", "rules": ["my-rules"]}}
        )
    )
    [hand] = await diagnostics(client, uri, lambda ds: [d.code for d in ds] == [RULE])
    assert isinstance(hand.data, dict) and hand.data["records"] == [RECORD]

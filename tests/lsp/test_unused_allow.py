"""An allow comment that silences nothing, in the editor: a hint tagged Unnecessary (shown
faded) whose quick fix removes the comment; an end-of-line allow does not reach the next line
(issue 37, point 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import actions_for, change_doc, diagnostics, edits_of, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

SUPPRESSION = "panic-lens-suppression"
DROPOUT = "dropout-probability-range"
TEXT = (
    "use burn::nn::DropoutConfig;\n"
    "pub fn f() {\n"
    f"    let a = DropoutConfig::new(0.5).init(); // panic-lens: allow({DROPOUT}) ok\n"
    "    let b = DropoutConfig::new(50.0).init();\n"
    "}\n"
)


async def test_unused_allow_is_an_unnecessary_hint_with_a_removing_fix(
    shared: LanguageClient, crate: Path
) -> None:
    path = crate / "src" / "stale.rs"
    path.write_text(TEXT)
    uri = open_doc(shared, path)
    found = await diagnostics(shared, uri, lambda ds: len(ds) == 2)
    assert [(d.code, d.range.start.line) for d in found] == [(SUPPRESSION, 2), (DROPOUT, 3)]
    hint = found[0]
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert list(hint.tags or []) == [types.DiagnosticTag.Unnecessary]
    assert hint.message == f"unused suppression: no `{DROPOUT}` finding on this line"
    actions = await actions_for(shared, uri, hint)
    [remove] = [a for a in actions if a.title == "Remove the unused suppression"]
    assert remove.is_preferred
    edits = await edits_of(shared, remove, uri)
    change_doc(shared, uri, 2, edits=edits, encoding=shared.encoding)
    left = await diagnostics(shared, uri, lambda ds: len(ds) == 1)
    assert [(d.code, d.range.start.line) for d in left] == [(DROPOUT, 3)]

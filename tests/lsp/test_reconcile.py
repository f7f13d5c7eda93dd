"""tree-sitter's incremental re-parse of text with syntax errors may recover differently from a
fresh parse. The keystroke path keeps the fast incremental tree; once typing pauses, the server
parses the document afresh, so its diagnostics settle on exactly what `panic-lens check` says.

The edits below are such a case, found by random editing: two stray quotes in the demo app's
model.rs. The test first checks that they still are one (with this tree-sitter-rust).
"""

from __future__ import annotations

import shutil
from itertools import pairwise
from pathlib import Path

import pytest
from lsp_helpers import DATA, change_doc, diagnostics, eventually, open_doc, pull, pulls
from lsprotocol import types
from pytest_lsp import LanguageClient

from panic_lens.engine import analyze
from panic_lens.rust.incremental import reparse
from panic_lens.rust.syntax import parse

QUOTES = (354, 1465)  # byte offsets where a `"` is typed, one after the other


def versions(text: bytes) -> list[bytes]:
    out = [text]
    for at in QUOTES:
        out.append(out[-1][:at] + b'"' + out[-1][at:])
    return out


def position(text: bytes, at: int) -> types.Position:
    line = text.count(b"\n", 0, at)
    return types.Position(line, at - (text.rfind(b"\n", 0, at) + 1))  # ASCII: any encoding


def analysed(client: LanguageClient, uri: str, version: int) -> list[object]:
    return [p for p in client.published if p.uri == uri and p.version == version]  # type: ignore[attr-defined]


def keyed(analysis_findings: object) -> list[tuple[str, int, int]]:
    return sorted((f.rule, f.span.start.row, f.span.start.col) for f in analysis_findings)  # type: ignore[attr-defined]


def test_the_edits_make_the_incremental_tree_differ_from_a_fresh_parse(tmp_path: Path) -> None:
    crate = Path(shutil.copytree(DATA / "reconcile", tmp_path / "reconcile"))
    path = crate / "src" / "model.rs"
    texts = versions(path.read_bytes())
    tree = parse(texts[0])
    for old, new in pairwise(texts):
        tree = reparse(old, tree, new)
    incremental = analyze(texts[-1], path, tree=tree)
    fresh = analyze(texts[-1], path)
    assert str(tree.root_node) != str(parse(texts[-1]).root_node)
    assert keyed(incremental.findings) != keyed(fresh.findings)


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_settle_on_a_fresh_parse_once_typing_pauses(
    shared: LanguageClient, tmp_path: Path
) -> None:
    crate = Path(shutil.copytree(DATA / "reconcile", tmp_path / "reconcile"))
    path = crate / "src" / "model.rs"
    texts = versions(path.read_bytes())
    uri = open_doc(shared, path)
    await diagnostics(shared, uri, lambda ds: True)
    for version, (old, at) in enumerate(zip(texts, QUOTES, strict=False), start=2):
        here = position(old, at)
        change_doc(shared, uri, version, types.Range(here, here), '"')
        # one analysis per quote, as when typed (both at once would be one re-parse)
        if pulls(shared):
            await pull(shared, uri)
        else:
            await eventually(lambda v=version: analysed(shared, uri, v), bool)
    want = keyed(analyze(texts[-1], path).findings)

    def settled(ds: object) -> bool:
        got = sorted((d.code, d.range.start.line, d.range.start.character) for d in ds)  # type: ignore[attr-defined]
        return got == want

    await diagnostics(shared, uri, settled)
    if not pulls(shared):  # the keystroke's own publish (the incremental tree's) came first
        sent = [p.diagnostics for p in shared.published if p.uri == uri and p.version == 3]  # type: ignore[attr-defined]
        assert len(sent) == 2 and not settled(sent[0]) and settled(sent[1])

"""Through a real server: after every didChange (an incremental re-parse), the diagnostics equal
those of opening the same text fresh."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

from bench.lsp_bench import TIMEOUT, _Client, _start
from lsprotocol import types

from bench import corpus

SNIPPETS = ("// x", "let y = 1;", "}", "InterpolateMode::Bilinear", "\n", "5000", "", "", "")
Diagnostics = list[types.Diagnostic]


def position(text: str, offset: int) -> types.Position:
    """ASCII-only text, so a character offset is a UTF-16 column."""
    line = text.count("\n", 0, offset)
    return types.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


async def open_fresh(client: _Client, path: Path, text: str) -> Diagnostics:
    uri = client.open(path, text)
    await asyncio.wait_for(client.expect(uri, 1), TIMEOUT)
    client.close(uri)
    return client.published[(uri, 1)]


async def change(client: _Client, uri: str, text: str, version: int, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    cut = min(rng.choice((0, 1, 4)), len(text) - at)
    new = rng.choice(SNIPPETS)
    edit = types.TextDocumentContentChangePartial(
        range=types.Range(position(text, at), position(text, at + cut)), text=new
    )
    future = client.expect(uri, version)
    doc = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
    client.lc.text_document_did_change(
        types.DidChangeTextDocumentParams(text_document=doc, content_changes=[edit])
    )
    await asyncio.wait_for(future, TIMEOUT)
    return text[:at] + new + text[at + cut :]


async def edit_and_compare(root: Path, text: str, steps: int) -> list[tuple[Diagnostics, ...]]:
    client = _Client()
    await _start(client, root)
    uri = client.open(root / "src" / "edited.rs", text)
    await asyncio.wait_for(client.expect(uri, 1), TIMEOUT)
    rng = random.Random(2)
    pairs = []
    for version in range(2, steps + 2):
        text = await change(client, uri, text, version, rng)
        fresh = await open_fresh(client, root / "src" / f"fresh{version}.rs", text)
        pairs.append((client.published[(uri, version)], fresh))
    await client.lc.shutdown_async(None)
    client.lc.exit(None)
    await client.lc.stop()
    return pairs


def test_each_edit_gives_the_diagnostics_of_a_fresh_open(make_crate: Callable[..., Path]) -> None:
    root = make_crate("app", {"src/lib.rs": ""})
    text = corpus.big_file(300, seed=4)
    assert text.isascii()
    pairs = asyncio.run(edit_and_compare(root, text, 20))

    def strip(ds: Diagnostics) -> list[tuple[object, ...]]:
        return [(d.range, d.message, d.code, d.severity) for d in ds]

    assert sum(1 for _, fresh in pairs if fresh) >= 5, "enough steps still have findings"
    for step, (edited, fresh) in enumerate(pairs):
        assert strip(edited) == strip(fresh), step

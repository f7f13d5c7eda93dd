"""LSP soak over real stdio: 10,000 random incremental edits across several documents.

The client keeps its own copy of every document (LSP line rules: LF, CRLF and lone CR end a
line; columns in UTF-16 units) and sends each edit as a ranged change, a few per didChange.
The server must stay up and answer, log no exception, keep its memory bounded, and end with
exactly the diagnostics a fresh server gives for the final texts.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
from rel_rpc import RpcServer, push_capabilities
from rel_support import GOLDEN, TESTS

EDITS = 10_000
SEED = 20_261_202
MEMORY_GROWTH_LIMIT = 150 * 2**20  # bytes of RSS growth allowed after the warm-up edits
# Quotes and comment openers can swallow the rest of a file: rarer, so findings survive.
RARE = ['"', "'", "/*", "*/", "//"]
FRAGMENTS = [
    "🦀", "中文", "é", "\r\n", "\r", "\n", "(", ")", "{", "}", "[", "]", "<", ">",
    "::", " ", "    ", "x", "let t = ", ";", "ctc_loss(", "4096", "5000",
    "AsyncPolicy::new(4, p)", ".load_record(r)", "InterpolateMode::Bilinear", ".backward()",
    "// panic-lens: allow(ctc-target-capacity) soak\n", "fn g() {", "Tensor::<2, Int>::zeros(",
]  # fmt: skip
LINE_END = re.compile(r"\r\n|\r|\n")


class Doc:
    """The client's copy of one document, with LSP positions (UTF-16 columns).

    Edits are typing, deleting a selection, and undoing earlier edits (as users do), so the
    text stays close enough to real code for findings to come and go.
    """

    def __init__(self, uri: str, text: str) -> None:
        self.uri, self.text, self.version = uri, text, 1
        self.undo: list[tuple[int, int, str]] = []  # (start, end, old text) to restore

    def lines(self) -> list[tuple[int, str]]:
        """(start offset, content without terminator) of every line."""
        out, start = [], 0
        for match in LINE_END.finditer(self.text):
            out.append((start, self.text[start : match.start()]))
            start = match.end()
        out.append((start, self.text[start:]))
        return out

    def position(self, offset: int) -> dict[str, int] | None:
        """The LSP position of a code point offset; None inside a line terminator."""
        for row, (start, content) in enumerate(self.lines()):
            if start <= offset <= start + len(content):
                units = len(content[: offset - start].encode("utf-16-le")) // 2
                return {"line": row, "character": units}
        return None

    def random_change(self, rng: random.Random) -> dict[str, Any]:
        if self.undo and rng.random() < 0.45:
            start, end, old = self.undo.pop()
            change = self.replace(start, end, old, remember=False)
            if change is not None:
                return change
        start = rng.randint(0, len(self.text))
        end = start if rng.random() < 0.6 else min(len(self.text), start + rng.randint(0, 120))
        pool = RARE if rng.random() < 0.03 else FRAGMENTS
        new = "".join(rng.choice(pool) for _ in range(rng.randint(0, 3)))
        change = self.replace(start, end, new, remember=True)
        return change if change is not None else self.replace(0, 0, new, remember=True)  # type: ignore[return-value]

    def undo_all(self) -> list[dict[str, Any]]:
        """Undo every outstanding edit, newest first (the user holding Ctrl+Z)."""
        changes = []
        while self.undo:
            start, end, old = self.undo.pop()
            change = self.replace(start, end, old, remember=False)
            if change is not None:
                changes.append(change)
        return changes

    def replace(self, start: int, end: int, new: str, *, remember: bool) -> dict[str, Any] | None:
        """Replace text[start:end] with `new`; the LSP change, or None for unreachable ends."""
        pa, pb = self.position(start), self.position(end)
        if pa is None or pb is None:
            return None
        if remember:
            self.undo.append((start, start + len(new), self.text[start:end]))
        self.text = self.text[:start] + new + self.text[end:]
        return {"range": {"start": pa, "end": pb}, "text": new}


def workspace(tmp_path: Path) -> list[Path]:
    """The LSP test crate plus two golden files, copied so nothing under tests/ changes."""
    root = Path(shutil.copytree(TESTS / "lsp" / "data" / "crate", tmp_path / "crate"))
    for case, name in (("ctc-module-cuda", "lib.rs"), ("interpolate-train-wgpu", "lib.rs")):
        shutil.copy(GOLDEN / case / "src" / name, root / "src" / f"{case.replace('-', '_')}.rs")
    return sorted((root / "src").glob("*.rs"))


def final_diagnostics(server: RpcServer, docs: list[Doc]) -> dict[str, list[dict[str, Any]]]:
    return {doc.uri: server.pull(doc.uri) for doc in docs}


def start_servers(root: Path, docs: list[Doc], push: bool) -> tuple[RpcServer, RpcServer]:
    """The soaked server (pulling like Neovim or taking pushes like VS Code) and a pulling
    reference, both with every document open."""
    server, reference = RpcServer(cwd=root), RpcServer(cwd=root)
    server.initialize(root, push_capabilities() if push else None)
    reference.initialize(root)
    for each in (server, reference):
        for doc in docs:
            each.open(doc.uri, doc.text)
    return server, reference


@pytest.mark.slow
@pytest.mark.parametrize("push", [False, True], ids=["pull", "push"])
def test_ten_thousand_incremental_edits(tmp_path: Path, push: bool) -> None:
    files = workspace(tmp_path)
    root = files[0].parent.parent
    rng = random.Random(SEED)
    docs = [Doc(f.as_uri(), f.read_text(encoding="utf-8")) for f in files]
    server, reference = start_servers(root, docs, push)
    try:
        if push:
            warm, end, compared = soak(
                server, docs, rng, lambda d, n: published_as_reference(server, reference, d, n)
            )
            got = {doc.uri: published(server, doc) for doc in docs}
        else:
            warm, end, compared = soak(
                server, docs, rng, lambda d, n: same_as_reference(server, reference, d, n), 0.1
            )
            got = final_diagnostics(server, docs)
        assert server.problems_logged() == []
    finally:
        server.shutdown()
        reference.shutdown()
    fresh = RpcServer(cwd=root)
    try:
        fresh.initialize(root)
        for doc in docs:
            fresh.open(doc.uri, doc.text)
        assert final_diagnostics(fresh, docs) == got
    finally:
        fresh.shutdown()
    print(
        f"soak ({'push' if push else 'pull'}): {compared} diagnostics compared on the way, "
        f"{sum(map(len, got.values()))} at the end; server RSS {warm >> 20} MiB after warm-up, "
        f"{end >> 20} MiB at the end"
    )
    assert end - warm < MEMORY_GROWTH_LIMIT, f"RSS grew from {warm >> 20} to {end >> 20} MiB"


def soak(
    server: RpcServer,
    docs: list[Doc],
    rng: random.Random,
    observe: Callable[[Doc, int], int],
    rate: float = 0.0,
) -> tuple[int, int, int]:
    """Send EDITS edits. After about `rate` of the didChanges, and every 500 edits before and
    after undoing all of the document's edits, `observe` compares its diagnostics.
    Returns (RSS after warm-up, RSS at the end, diagnostics compared)."""
    process = psutil.Process(server.proc.pid)
    sent, warm, compared = 0, 0, 0
    while sent < EDITS:
        doc = rng.choice(docs)
        changes = [doc.random_change(rng) for _ in range(min(rng.randint(1, 8), EDITS - sent))]
        doc.version += 1
        change(server, doc, changes)
        before, sent = sent, sent + len(changes)
        if rng.random() < rate:  # the editor asks now and then: analyse on the kept tree
            compared += observe(doc, sent)
        if sent // 500 != before // 500:
            assert server.proc.poll() is None, "server exited during the soak"
            compared += observe(doc, sent)
            undo = doc.undo_all()
            if undo:  # nothing to undo: no didChange (a server need not publish for none)
                doc.version += 1
                change(server, doc, undo)
                sent += len(undo)
                compared += observe(doc, sent)
            if sent >= 1_000 and not warm:
                warm = process.memory_info().rss
    return warm, process.memory_info().rss, compared


def published(server: RpcServer, doc: Doc) -> list[dict[str, Any]]:
    """The diagnostics the server pushed for the document's current version."""
    note = server.wait_note(
        "textDocument/publishDiagnostics",
        lambda p: p.get("uri") == doc.uri and p.get("version") == doc.version,
        timeout=30,
    )
    return list(note["diagnostics"])


def published_as_reference(server: RpcServer, reference: RpcServer, doc: Doc, sent: int) -> int:
    """Pushed diagnostics for the current version equal a from-scratch analysis."""
    got = published(server, doc)
    reference.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri}})
    reference.open(doc.uri, doc.text, doc.version)
    assert got == reference.pull(doc.uri, timeout=60), f"after {sent} edits"
    return len(got)


def same_as_reference(server: RpcServer, reference: RpcServer, doc: Doc, sent: int) -> int:
    """The edited server's diagnostics for `doc` equal a from-scratch analysis (the reference
    closes and reopens the document, so it keeps no tree); their count."""
    reference.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri}})
    reference.open(doc.uri, doc.text, doc.version)
    got = server.pull(doc.uri, timeout=60)
    assert got == reference.pull(doc.uri, timeout=60), f"after {sent} edits"
    return len(got)


def change(server: RpcServer, doc: Doc, changes: list[dict[str, Any]]) -> None:
    params = {"textDocument": {"uri": doc.uri, "version": doc.version}, "contentChanges": changes}
    server.notify("textDocument/didChange", params)

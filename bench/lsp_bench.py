"""Language-server latencies through a real stdio client (pygls's LanguageClient).

Start -> first diagnostics, the workspace scan, didOpen -> publishDiagnostics and didChange ->
publishDiagnostics (p50/p95) on a 5,000-line file, and the server's RSS with N files open.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from bench.measure import percentile

TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class LspFigures:
    """Milliseconds, except `rss_mb` (MB) and the counts."""

    start_to_first_ms: float
    scan_ms: float
    scan_files: int
    open_p50_ms: float
    open_p95_ms: float
    change_p50_ms: float
    change_p95_ms: float
    change_findings: int
    rss_idle_mb: float
    rss_open_mb: float
    open_files: int
    # didChange -> publish for edits that change the file's structure (a full analysis)
    structural_p50_ms: float = 0.0
    structural_p95_ms: float = 0.0
    start_runs: int = 1  # start_to_first_ms is the median of this many server starts


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


class _Client:
    """A LanguageClient that records publishDiagnostics and scan progress as futures."""

    def __init__(self) -> None:
        self.lc = LanguageClient("panic-lens-bench", "1")
        self.waiting: dict[tuple[str, int | None], asyncio.Future[int]] = {}
        self.published: dict[tuple[str, int | None], list[types.Diagnostic]] = {}
        self.scan_done: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        def on_publish(*args: Any) -> None:  # pygls passes (params) or (client, params)
            params: types.PublishDiagnosticsParams = args[-1]
            self.published[(params.uri, params.version)] = params.diagnostics
            future = self.waiting.pop((params.uri, params.version), None)
            if future is not None and not future.done():
                future.set_result(len(params.diagnostics))

        def on_create(*args: Any) -> None:
            return None

        def on_progress(*args: Any) -> None:
            value = args[-1].value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            if kind == "end" and not self.scan_done.done():
                self.scan_done.set_result(time.perf_counter())

        self.lc.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(on_publish)
        self.lc.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(on_create)
        self.lc.feature(types.PROGRESS)(on_progress)

    def expect(self, uri: str, version: int | None) -> asyncio.Future[int]:
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.waiting[(uri, version)] = future
        return future

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = uri_of(path)
        item = types.TextDocumentItem(uri=uri, language_id="rust", version=version, text=text)
        self.lc.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        return uri

    def close(self, uri: str) -> None:
        doc = types.TextDocumentIdentifier(uri=uri)
        self.lc.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc))

    @property
    def pid(self) -> int:
        server = self.lc._server  # pygls keeps the subprocess here
        assert server is not None
        return server.pid


# As installed (pip compiles bytecode), as bench/run.py times `check`: a session's
# PYTHONDONTWRITEBYTECODE would make every start recompile the package's source.
SERVER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def write_bytecode() -> None:
    """One untimed import of everything the server loads writes the package's bytecode."""
    script = "import panic_lens.cli, panic_lens.lsp.server, panic_lens.lsp.actions"
    subprocess.run([sys.executable, "-c", script], env=SERVER_ENV, check=True)


SERVE = ("-m", "panic_lens", "serve", "--log-level", "error")


async def _start(
    client: _Client, root: Path, server: tuple[str, ...] = SERVE, env: dict[str, str] = SERVER_ENV
) -> None:
    await client.lc.start_io(sys.executable, *server, env=env)
    caps = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
        ),
        window=types.WindowClientCapabilities(work_done_progress=True),
    )
    folder = types.WorkspaceFolder(uri=uri_of(root), name=root.name)
    params = types.InitializeParams(
        capabilities=caps, root_uri=folder.uri, workspace_folders=[folder]
    )
    await client.lc.initialize_async(params)
    client.lc.initialized(types.InitializedParams())


async def _timed(future: asyncio.Future[int], start: float) -> tuple[float, int]:
    count = await asyncio.wait_for(future, TIMEOUT)
    return (time.perf_counter() - start) * 1000, count


async def run_lsp(
    root: Path, big_text: str, open_paths: list[Path], opens: int = 20, changes: int = 50,
    starts: int = 1,
) -> LspFigures:  # fmt: skip
    """Drive one server over the workspace `root`; `big_text` goes to an unsaved file in it.
    The start figure is the median of `starts` server starts (this session's and fresh ones:
    one start on a shared machine says little)."""
    write_bytecode()
    t0 = time.perf_counter()
    client = _Client()
    await _start(client, root)
    first = open_paths[0]
    first_ms, _ = await _timed(client.expect(client.open(first, first.read_text()), 1), t0)
    scan_end = await asyncio.wait_for(client.scan_done, TIMEOUT)
    client.close(uri_of(first))
    big_dir = open_paths[0].parent
    open_ms = []
    for i in range(opens):
        start = time.perf_counter()
        uri = client.open(big_dir / f"bench_big_{i}.rs", big_text)
        open_ms.append((await _timed(client.expect(uri, 1), start))[0])
        client.close(uri)
    edited = big_dir / "bench_big_edit.rs"
    change_ms, findings = await _changes(client, edited, big_text, keystrokes(big_text, changes))
    structural = structural_edits(big_text, max(2, changes // 5))
    structural_ms, _ = await _changes(client, edited, big_text, structural)
    rss_idle = psutil.Process(client.pid).memory_info().rss / 2**20
    pending = [client.expect(uri_of(p), 1) for p in open_paths]
    for path in open_paths:
        client.open(path, path.read_text())
    await asyncio.wait_for(asyncio.gather(*pending), TIMEOUT)
    rss_open = psutil.Process(client.pid).memory_info().rss / 2**20
    await client.lc.shutdown_async(None)
    client.lc.exit(None)
    await client.lc.stop()
    firsts = [first_ms]
    for _ in range(starts - 1):
        firsts.append((await start_to_first(root, first, SERVE, SERVER_ENV))[0])
    return LspFigures(
        percentile(firsts, 50), (scan_end - t0) * 1000, _count_rs(root),
        percentile(open_ms, 50), percentile(open_ms, 95),
        percentile(change_ms, 50), percentile(change_ms, 95), findings,
        rss_idle, rss_open, len(open_paths),
        percentile(structural_ms, 50), percentile(structural_ms, 95), len(firsts),
    )  # fmt: skip


STATEMENT = "let scaled = values.len() * 2;"


def keystrokes(text: str, count: int) -> list[types.TextDocumentContentChangePartial]:
    """`count` keystrokes of someone writing a new statement in a function body in the middle
    of `text`, one change each, as an editor that auto-indents and closes brackets sends them:
    Enter at the end of a `let` line, the statement key by key (half-typed lines are syntax
    errors), then Backspace key by key and the line joined again; repeated to `count`."""
    lines = text.split("\n")
    row = next(i for i in range(len(lines) // 2, len(lines))
               if lines[i].strip().startswith("let ") and lines[i].endswith(";"))  # fmt: skip
    indent = lines[row][: len(lines[row]) - len(lines[row].lstrip())]
    end = types.Position(row, len(lines[row]))
    one: list[types.TextDocumentContentChangePartial] = [_insert(end, "\n" + indent)]
    col = len(indent)
    for i, key in enumerate(STATEMENT):
        if key == ")" and STATEMENT[i - 1] == "(":
            col += 1  # typing over the bracket the editor closed: no change
            continue
        one.append(_insert(types.Position(row + 1, col), "()" if key == "(" else key))
        col += 1
    for _ in STATEMENT:  # Backspace
        one.append(_delete(types.Position(row + 1, col - 1), types.Position(row + 1, col)))
        col -= 1
    one.append(_delete(end, types.Position(row + 1, len(indent))))
    return [one[i % len(one)] for i in range(count)]


def _insert(at: types.Position, text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(range=types.Range(at, at), text=text)


def _delete(start: types.Position, end: types.Position) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(range=types.Range(start, end), text="")


def structural_edits(text: str, count: int) -> list[types.TextDocumentContentChangePartial]:
    """Comment out the middle line of `text` and back, `count` times: there a function's
    closing brace, so the file's structure changes and the whole file is analysed again."""
    row = text.count("\n") // 2
    on = _insert(types.Position(row, 0), "// ")
    off = _delete(types.Position(row, 0), types.Position(row, 3))
    return [on if i % 2 == 0 else off for i in range(count)]


async def _changes(
    client: _Client, path: Path, text: str, changes: list[types.TextDocumentContentChangePartial]
) -> tuple[list[float], int]:
    """Send `changes` one per version, each after the previous one's diagnostics arrived."""
    uri = client.open(path, text)
    await asyncio.wait_for(client.expect(uri, 1), TIMEOUT)
    times, findings = [], 0
    for version, change in enumerate(changes, start=2):
        doc = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
        start = time.perf_counter()
        future = client.expect(uri, version)
        client.lc.text_document_did_change(
            types.DidChangeTextDocumentParams(text_document=doc, content_changes=[change])
        )
        elapsed, findings = await _timed(future, start)
        times.append(elapsed)
    client.close(uri)
    return times, findings


def _count_rs(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.rs"))


# The least any pygls server does before its first diagnostics: import pygls and lsprotocol,
# answer initialize, publish an empty list on didOpen. With ATTRS_CACHE it first imports
# panic_lens.lsp, whose codecache gives attrs its compiled methods as the real server does.
FLOOR_SERVER = """
import os, sys
if os.environ.get("ATTRS_CACHE"):
    import panic_lens.lsp
from lsprotocol import types
from pygls.lsp.server import LanguageServer
server = LanguageServer("floor", "1")
@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params):
    doc = params.text_document
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, version=doc.version, diagnostics=[])
    )
server.start_io()
"""


async def start_to_first(
    root: Path, path: Path, server: tuple[str, ...], env: dict[str, str]
) -> tuple[float, float]:
    """Wall ms from spawning `server` to its first publishDiagnostics for `path` (opened right
    after initialize, as run_lsp does), and the server's CPU ms by then."""
    t0 = time.perf_counter()
    client = _Client()
    await _start(client, root, server, env)
    wall, _ = await _timed(client.expect(client.open(path, path.read_text()), 1), t0)
    cpu = psutil.Process(client.pid).cpu_times()
    await client.lc.shutdown_async(None)
    client.lc.exit(None)
    await client.lc.stop()
    return wall, (cpu.user + cpu.system) * 1000


async def floor(root: Path, runs: int) -> None:
    """Start -> first diagnostics of panic-lens next to the pygls floor, runs interleaved."""
    write_bytecode()
    path = sorted(p for p in root.rglob("*.rs") if p.name != "lib.rs")[0]
    servers = {
        "pygls floor": (("-c", FLOOR_SERVER), SERVER_ENV),
        "pygls floor, attrs code cache": (("-c", FLOOR_SERVER), {**SERVER_ENV, "ATTRS_CACHE": "1"}),
        "panic-lens serve": (SERVE, SERVER_ENV),
    }
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in servers}
    for _ in range(runs):
        for name, (server, env) in servers.items():
            figures[name].append(await start_to_first(root, path, server, env))
    print(f"start -> first publishDiagnostics, {runs} runs, load {os.getloadavg()[0]:.2f}\n")
    print("| server | wall ms, median (min) | server CPU ms, median (min) |\n|---|---:|---:|")
    for name, values in figures.items():
        walls, cpus = [v[0] for v in values], [v[1] for v in values]
        print(f"| {name} | {percentile(walls, 50):.0f} ({min(walls):.0f}) "
              f"| {percentile(cpus, 50):.0f} ({min(cpus):.0f}) |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.lsp_bench --runs 5`: the start figure and its floor, on the run_lsp
    workspace (500 generated files)."""
    import argparse
    import tempfile

    from bench import corpus

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="panic-lens-lsp-floor-") as tmp:
        corpus.generate(Path(tmp), 500, seed=7)
        asyncio.run(floor(Path(tmp), args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

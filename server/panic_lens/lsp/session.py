"""The server's state: settings, catalog, client facts and every analysed file.

Open documents are analysed from the editor's buffer, other workspace files from disk; both end
up as a FileResult that diagnostics, hover and code actions read.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from panic_lens import __version__, engine, function_reanalysis
from panic_lens.diagnostics import is_source
from panic_lens.lsp import pygls_compat
from panic_lens.lsp.convert import LineIndex, diagnostic_json, lsp_diagnostic
from panic_lens.lsp.protocol import LspTextDocument, PanicLensProtocol
from panic_lens.model import Analysis, Finding
from panic_lens.positions import Encoding
from panic_lens.rust.incremental import forget_edited, reparse
from panic_lens.rust.syntax import Tree, parse_code
from panic_lens.settings import Settings

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog
    from panic_lens.rules.language.spec import RuleFileError

logger = logging.getLogger(__name__)
DIAGNOSTIC_IDENTIFIER = "panic-lens"
JSON_RPC_PARSE_ERROR = -32700
KEPT_TREES = 8  # documents whose last tree is kept for incremental re-parses
SETTLE_TIMEOUT_S = 3.0  # longer than config.CONFIG_TIMEOUT_S: settle normally comes first
# Once typing pauses this long, a document whose incremental tree has syntax errors is parsed
# afresh (see `_reconcile`); each keystroke starts the wait again.
RECONCILE_DELAY_S = 0.5
_PROCESS = os.urandom(8).hex()  # open documents' result ids are unique to this process
_INCOMING = (
    types.InitializedNotification,
    types.DidOpenTextDocumentNotification,
    types.DidChangeTextDocumentNotification,
)


@dataclass(frozen=True, slots=True)
class FileResult:
    """One analysed text: where it came from, its lines and what the engine said."""

    uri: str
    path: str | None
    version: int | None
    index: LineIndex
    analysis: Analysis
    result_id: str

    def finding(self, key: str) -> Finding | None:
        from panic_lens.lsp.convert import finding_key

        return next((f for f in self.analysis.findings if finding_key(f) == key), None)


class PanicLensServer(LanguageServer):
    """pygls LanguageServer holding panic-lens state; handlers live in `lsp.server`."""

    def __init__(self) -> None:
        super().__init__(
            "panic-lens",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PanicLensProtocol,
        )
        self.settings = Settings()
        self.settings_asked = 0  # settings refreshes started, and the newest one applied
        self.settings_applied = 0  # (lsp/config.refresh_settings)
        self.catalog: Catalog | None = None
        # each record's derivation outcome (why a record has no rule: catalog/coverage.py)
        self.derived_outcomes: Mapping[str, object] = {}
        self.init_options: Any = None
        self.open: dict[str, FileResult] = {}
        self.trees: dict[str, tuple[bytes, Tree]] = {}  # recently edited: last text and tree
        self.snapshots: dict[str, function_reanalysis.Snapshot] = {}  # same documents
        self.disk: dict[str, FileResult] = {}
        self.generation = 0  # bumps when settings or the catalog change: new result ids
        # `panic-lens serve` starts with the cycle collector off (cli.main); the first publish
        # (or STARTUP_COLLECT_S after initialize) turns it on: `start_collector`.
        self.collector_deferred = False
        self.scan_count = 0
        # uri -> the publishDiagnostics params the quick start sent (quickstart.py): the same
        # params are not sent again
        self.quick_published: dict[str, dict[str, Any]] = {}
        self.reported_record_errors: frozenset[str] = frozenset()
        # user rule folders (lsp/rule_files.py): the folders and files in use, the errors of
        # the rule files by URI, and those whose diagnostics are still to be published
        self.rule_folders: tuple[Path, ...] = ()
        self.rule_files: frozenset[str] = frozenset()
        self.rule_errors: dict[str, list[RuleFileError]] = {}
        self.rule_errors_pending: dict[str, list[RuleFileError]] = {}
        self.reported_rule_folders: frozenset[str] = frozenset()
        self.watchers_id: str | None = None  # the file watchers in force (lsp/scan.py)
        self.watchers_lock = asyncio.Lock()  # one (un)registration of the watchers at a time
        self.noted: set[str] = set()
        self.dirty: set[str] = set()  # open documents changed since their last analysis
        self.pending: dict[str, asyncio.Handle] = {}  # analyses waiting for a free event loop
        # Documents whose tree came from an incremental re-parse with syntax errors in it, and
        # the timers that parse them afresh once typing pauses (`_reconcile`).
        self.unsettled: set[str] = set()
        self.reconciling: dict[str, asyncio.TimerHandle] = {}
        # False until the client's own settings (workspace/configuration) are in: documents
        # opened before then wait, so no diagnostic flashes with a severity the user turned off
        self.ready = asyncio.Event()
        # held workspace/diagnostic pulls, woken when a result may have changed
        self.change_waiters: list[asyncio.Future[None]] = []
        # run by `reanalyze_all` (lsp/server.py adds the records files' refresh)
        self.reanalyze_hooks: list[Callable[[], None]] = []

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message that is not JSON gets JSON-RPC's parse error (its id cannot be known, so
        null) and the server reads on; pygls would show "Error in server" instead."""
        if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
            logger.warning("a message from the client is not JSON: %s", error)
            parse_error = types.ResponseError(code=JSON_RPC_PARSE_ERROR, message=str(error))
            pygls_compat.send_response(self.protocol, None, None, parse_error)
            return
        super().report_server_error(error, source)

    # ---- client facts -------------------------------------------------------------------
    @property
    def encoding(self) -> Encoding:
        enc = self.workspace.position_encoding
        return "utf-8" if enc == types.PositionEncodingKind.Utf8 else "utf-16"

    @property
    def pull(self) -> bool:
        """True when the client pulls diagnostics: then the server never pushes them."""
        caps = getattr(self.protocol, "client_capabilities", None)
        docs = caps.text_document if caps else None
        return bool(docs and docs.diagnostic is not None)

    def client_supports(self, dotted: str) -> bool:
        node: Any = getattr(self.protocol, "client_capabilities", None)
        for part in dotted.split("."):
            node = getattr(node, part, None)
        return bool(node)

    def adjust_capabilities(self, caps: types.ServerCapabilities) -> None:
        """Called by the protocol after pygls built the capabilities: push clients get none."""
        if not self.pull:
            caps.diagnostic_provider = None

    # ---- analysis -----------------------------------------------------------------------
    def analyze(
        self,
        uri: str,
        text: str | bytes,
        version: int | None,
        tree: Tree | None = None,
        index: LineIndex | None = None,
        content_id: int | None = None,
    ) -> FileResult:
        """`index` and `content_id` (unique to this text in this process) come from an open
        document, which keeps its line starts and edit count: neither costs the whole text."""
        path = to_fs_path(uri)
        try:
            analysis = self._analysis(uri, text, path, tree)
        except Exception:  # the engine promises not to raise; never let it take us down
            logger.exception("analysis of %s failed", uri)
            self.snapshots.pop(uri, None)
            analysis = Analysis(notes=("analysis failed; see the server log",))
        return self.file_result(uri, path, text, version, analysis, index, content_id)

    def file_result(
        self,
        uri: str,
        path: str | None,
        text: str | bytes,
        version: int | None,
        analysis: Analysis,
        index: LineIndex | None = None,
        content_id: int | None = None,
    ) -> FileResult:
        """What the engine said of `text`, as the handlers read it; its notes logged once."""
        for note in analysis.notes:
            if note not in self.noted:  # e.g. bad Cargo.toml settings: once in the log
                self.noted.add(note)
                logger.warning("%s", note)
                if "skipped" in note:  # a file with no diagnostics must say why, visibly
                    kind = types.MessageType.Warning
                    message = f"panic-lens: {note}"
                    self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        if index is None:
            index = LineIndex.of(text, self.encoding)
        result_id = self._result_id(text, analysis, content_id)
        return FileResult(uri, path, version, index, analysis, result_id)

    def _analysis(
        self, uri: str, text: str | bytes, path: str | None, tree: Tree | None
    ) -> Analysis:
        """An edited open document: per-function re-analysis from its last snapshot when the
        edit allows it (function_reanalysis checks), else the full analysis."""
        if tree is None:  # a disk file: nothing to reuse next time
            return engine.analyze(text, path, settings=self.settings, catalog=self.catalog)
        src = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        old = self.snapshots.pop(uri, None)
        analysis, snap, _ = function_reanalysis.analyze_edit(
            old, src, path, settings=self.settings, catalog=self.catalog, tree=tree
        )
        if snap is not None and uri in self.trees:
            self.snapshots[uri] = snap
        return analysis

    def _result_id(self, text: str | bytes, analysis: Analysis, content_id: int | None) -> str:
        """Changes with the text, the settings or catalog (generation) and the finding count.

        An open document's text is named by its content id and this process (ids outlive a
        restart in the client); a disk file's by a hash of its bytes, so an unchanged file keeps
        its id across scans."""
        if content_id is not None:
            data = f"{_PROCESS}:{content_id}".encode()
        else:
            data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        digest = hashlib.blake2b(data, digest_size=8)
        digest.update(f"{self.generation}:{len(analysis.findings)}".encode())
        return digest.hexdigest()

    def refresh(self, uri: str) -> FileResult:
        """Analyse open document `uri` and publish its diagnostics, the cycle collector held
        off until they are sent (see `collector_paused`)."""
        with collector_paused():
            result = self.analyze_open(uri)
            self.publish(result)
        return result

    def _reconcile_later(self, uri: str) -> None:
        self._cancel_reconcile(uri)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the server's loop (tests of the session)
            return
        self.reconciling[uri] = loop.call_later(RECONCILE_DELAY_S, self._reconcile, uri)

    def _cancel_reconcile(self, uri: str) -> None:
        if (timer := self.reconciling.pop(uri, None)) is not None:
            timer.cancel()

    def _reconcile(self, uri: str) -> None:
        """Typing paused on a document with syntax errors: parse it from scratch.

        tree-sitter's incremental re-parse is the tree a fresh parse gives as long as the text
        parses; where it does not, error recovery may differ from a fresh parse's (rarely: 2 of
        1,313 random erroneous edits). The keystroke path keeps the fast incremental tree; this
        makes the diagnostics settle on exactly what `panic-lens check` reports.
        """
        self.reconciling.pop(uri, None)
        last = self.trees.get(uri)
        if uri not in self.unsettled or uri in self.dirty or uri not in self.open or last is None:
            return
        self.unsettled.discard(uri)
        try:
            before = self.open[uri].analysis
            self.trees[uri] = (last[0], parse_code(last[0]))
            self.snapshots.pop(uri, None)  # the next edit starts from the fresh tree
            with collector_paused():
                result = self.analyze_open(uri)
                changed = result.analysis != before
                if changed:
                    self.publish(result)  # push clients; pull clients are told to ask again
            refresh = self.pull and self.client_supports("workspace.diagnostics.refresh_support")
            if changed and refresh:
                self.workspace_diagnostic_refresh(None)
        except Exception:  # a timer callback: nobody else would see the error
            logger.exception("analysis of %s failed", uri)

    def analyze_open(self, uri: str) -> FileResult:
        doc = self.workspace.get_text_document(uri)
        source = doc.source
        src = source.encode("utf-8", "surrogatepass")  # once: the tree and the analysis read it
        tree = self._tree_for(uri, src)
        index = content_id = None
        if isinstance(doc, LspTextDocument):
            index = LineIndex.of_lines(source, doc.line_starts(), self.encoding)
            content_id = doc.content_id
        result = self.analyze(uri, src, doc.version, tree, index, content_id)
        forget_edited()  # the edited copy of the last tree, kept for this analysis only
        self.open[uri] = result
        self.results_changed()
        self.dirty.discard(uri)
        if uri in self.unsettled:
            self._reconcile_later(uri)
        return result

    def _tree_for(self, uri: str, src: bytes) -> Tree:
        """Re-parse incrementally from the document's last tree: after a keystroke that costs a
        small part of a full parse."""
        last = self.trees.pop(uri, None)
        tree = reparse(last[0], last[1], src) if last is not None else parse_code(src)
        if last is not None and tree is not last[1] and tree.root_node.has_error:
            self.unsettled.add(uri)
        elif last is None or tree is not last[1]:
            self.unsettled.discard(uri)
        self.trees[uri] = (src, tree)  # now the most recently used
        if len(self.trees) > KEPT_TREES:  # a tree costs ~40x its source: keep the edited few
            oldest = next(iter(self.trees))
            del self.trees[oldest]
            self.snapshots.pop(oldest, None)
        return tree

    def analyze_disk(self, path: Path) -> FileResult | None:
        uri = file_uri(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            logger.info("cannot read %s: %s", path, exc)
            self.disk.pop(uri, None)
            return None
        return self.keep_disk(uri, self.analyze(uri, data, None))

    def keep_disk(self, uri: str, result: FileResult) -> FileResult:
        self.disk[uri] = result
        self.results_changed()
        return result

    def warm_up(self) -> None:
        """Pay the first diagnostics' one-time costs while the client reads our answer to
        `initialize`: cattrs builds each incoming message type's structure code on first use,
        and the engine imports its rules and binds records on its first analysis (together
        a visible part of the first didOpen -> publish; a publish is sent as JSON objects, no cattrs
        code to build). Runs once, before any document is opened."""
        if self.open:
            return
        try:
            converter = pygls_compat.converter(self.protocol)
            for kind in _INCOMING:
                converter.get_structure_hook(kind)
            engine.warm_up(self.settings, self.catalog)
        except Exception:  # only an optimisation: never a reason to fail
            logger.debug("warm-up failed", exc_info=True)

    def is_source(self, uri: str) -> bool:
        return is_source(uri)

    def result(self, uri: str) -> FileResult | None:
        return self.open.get(uri) or self.disk.get(uri)

    def changed(self, uri: str) -> None:
        """A keystroke: analyse as soon as the event loop is free (pull clients: when asked).

        No timer: the analysis runs after every message already received, so a burst that
        arrived together, or while the last analysis ran, is analysed once, at its last version.
        """
        self.dirty.add(uri)
        self.results_changed()
        self._cancel_reconcile(uri)  # still typing: reconcile after the next pause
        if not self.pull and uri not in self.pending:
            self.pending[uri] = asyncio.get_running_loop().call_soon(self._flush, uri)

    def _flush(self, uri: str) -> None:
        self.pending.pop(uri, None)
        try:
            if uri in self.dirty and uri in self.open:
                self.refresh(uri)
        except Exception:  # a timer callback: nobody else would see the error
            logger.exception("analysis of %s failed", uri)

    def forget(self, uri: str) -> None:
        """A closed document: drop its state and any pending analysis."""
        self.results_changed()
        self.open.pop(uri, None)
        self.trees.pop(uri, None)
        self.snapshots.pop(uri, None)
        self.dirty.discard(uri)
        self.unsettled.discard(uri)
        if (pending := self.pending.pop(uri, None)) is not None:
            pending.cancel()
        self._cancel_reconcile(uri)

    def known(self, uri: str) -> FileResult | None:
        """The latest result for `uri`, analysing it now if needed; None when unreadable."""
        if (found := self.result(uri)) is not None and uri not in self.dirty:
            return found
        if uri in self.workspace.text_documents:
            return self.analyze_open(uri)
        path = to_fs_path(uri)  # not open in the editor: the file on disk, if there is one
        if not path or not self.in_workspace(Path(path)):
            return None  # a client asking about any path must not make us read the disk
        return self.analyze_disk(Path(path))

    def in_workspace(self, path: Path) -> bool:
        """True when `path` (symlinks resolved) lies inside one of the workspace folders."""
        real = path.resolve()
        return any(real.is_relative_to(root.resolve()) for root in self.workspace_roots())

    def workspace_roots(self) -> list[Path]:
        """The workspace folders (the root URI when the client named no folder) as paths."""
        folders = list(self.workspace.folders.values())
        root = self.workspace.root_uri
        uris = [f.uri for f in folders] or ([root] if root else [])
        return [Path(p) for u in uris if (p := to_fs_path(u))]

    def lines_for(self, path: str) -> LineIndex | None:
        """Lines of another file named by evidence: the open buffer, else the disk copy."""
        uri = file_uri(Path(path))
        if (known := self.result(uri)) is not None:
            return known.index
        try:
            return LineIndex.of(Path(path).read_bytes(), self.encoding)
        except OSError:
            return None

    # ---- diagnostics --------------------------------------------------------------------
    def diagnostics(self, result: FileResult) -> list[types.Diagnostic]:
        return [
            lsp_diagnostic(f, result.index, result.uri, self.lines_for)
            for f in result.analysis.findings
        ]

    def publish(self, result: FileResult) -> None:
        if self.collector_deferred:
            self.start_collector_soon()
        if self.pull:
            return
        index, uri, lines_for = result.index, result.uri, self.lines_for
        params: dict[str, Any] = {
            "uri": uri,
            "diagnostics": [
                diagnostic_json(f, index, uri, lines_for) for f in result.analysis.findings
            ],
        }
        if result.version is not None:
            params["version"] = result.version
        if self.quick_published and self.quick_published.pop(uri, None) == params:
            return  # the quick start sent these already
        self.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

    def notify_json(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification whose params are JSON objects already (pygls would build and
        validate lsprotocol objects, then unstructure them again: half a publish's time)."""
        # the keys in the order lsprotocol's converter writes them: the same bytes as pygls's
        message = {"params": params, "method": method, "jsonrpc": "2.0"}
        pygls_compat.send_json(self.protocol, message)

    def start_collector_soon(self, delay: float = 0.0) -> None:
        """`start_collector` once the event loop is free (the message being sent is out)."""
        with contextlib.suppress(RuntimeError):  # no event loop (tests of the session)
            asyncio.get_running_loop().call_later(delay, self.start_collector)

    def start_collector(self) -> None:
        """`panic-lens serve` starts with the cycle collector off (cli.main): the imports and
        the first analysis allocate ~400,000 objects that live as long as the server, and
        every pass over them before the first diagnostics was wasted (50,000-allocation
        thresholds still meant two passes before the first publish). Once the first
        diagnostics are out, one full pass moves the survivors to the oldest generation, and
        the usual thresholds keep the pauses of a typing session short. Without that pass,
        the first young collection would walk everything, and the next middle one again."""
        if not self.collector_deferred:
            return
        self.collector_deferred = False
        gc.set_threshold(700, 10, 10)  # CPython's defaults
        gc.collect()
        gc.enable()

    def publish_empty(self, uri: str) -> None:
        self.results_changed()
        self.quick_published.pop(uri, None)  # the client's list changes: no longer the quick one
        if not self.pull:
            params = types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            self.text_document_publish_diagnostics(params)

    def results_changed(self) -> None:
        """Wake the held workspace pulls: a document's diagnostics may have changed."""
        waiters, self.change_waiters = self.change_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def next_results_change(self, timeout: float) -> None:
        """Return at the next `results_changed`, or after `timeout` seconds."""
        waiter = asyncio.get_running_loop().create_future()
        self.change_waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            pass
        finally:
            if waiter in self.change_waiters:
                self.change_waiters.remove(waiter)

    @property
    def settled(self) -> bool:
        return self.ready.is_set()

    async def settled_or_timeout(self) -> None:
        """Wait (bounded) for the client's settings before answering with diagnostics."""
        if not self.ready.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ready.wait(), SETTLE_TIMEOUT_S)

    def settle(self, changed: bool) -> None:
        """The initial settings are in: analyse what was opened meanwhile (all, if changed)."""
        self.ready.set()
        if changed:
            self.reanalyze_all()
        for uri in list(self.dirty):
            if uri in self.workspace.text_documents and uri not in self.open:
                self.refresh(uri)

    def reanalyze_all(self) -> None:
        """After a settings, crate or catalog change: every known file again."""
        self.generation += 1
        self.snapshots.clear()  # the crate or other files may have changed: analyse afresh
        for uri in list(self.open):
            self.refresh(uri)
        for uri, old in list(self.disk.items()):
            if old.path and (fresh := self.analyze_disk(Path(old.path))) is not None:
                self.publish(fresh)
            else:
                self.publish_empty(uri)
        for hook in self.reanalyze_hooks:  # other files the rules or settings bear on
            hook()
        if self.pull and self.client_supports("workspace.diagnostics.refresh_support"):
            self.workspace_diagnostic_refresh(None)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block; it runs after, on the next allocation.

    Collections triggered in the middle of an analysis traverse everything it holds at that
    moment and push what is still alive to older generations, where it dies and waits for a
    full pass: long pauses in the keystroke p95. Collected after the publish, the analysis's
    cycles are dead and young (bench/RESULTS.md has the figures)."""
    if not gc.isenabled():  # someone else turned it off: leave it so
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def file_uri(path: Path) -> str:
    """The URI a client would use for `path` (pygls's spelling, so lookups match)."""
    return from_fs_path(str(path.absolute())) or path.absolute().as_uri()

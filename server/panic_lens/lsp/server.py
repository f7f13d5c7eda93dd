"""The panic-lens language server: thin handlers named after their LSP methods, and `run`.

State lives on `PanicLensServer` (lsp/session.py); conversions in convert.py, actions.py and
markdown.py. Logging goes to stderr and window/logMessage, never stdout (the LSP channel).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from panic_lens import quickstart
from panic_lens.lsp import (
    codecache,
    config,
    identifiers,
    pygls_compat,
    record_files,
    rule_files,
    scan,
)
from panic_lens.lsp.logs import attach_client_log, setup_logging
from panic_lens.lsp.markdown import lsp_hover
from panic_lens.lsp.protocol import PanicLensProtocol
from panic_lens.lsp.session import DIAGNOSTIC_IDENTIFIER, PanicLensServer
from panic_lens.quickstart import Handover

logger = logging.getLogger(__name__)

# Code actions and commands are imported on their first use, or once the start-up is over
# (with the code cache saved): imports that the first diagnostics do not need.
COMMANDS = {  # command name -> its function in lsp/commands.py
    identifiers.EXPLAIN: "explain_panic",
    identifiers.SHOW_RECORD: "show_record",
    identifiers.SCAN: "scan",
}
STARTUP_COLLECT_S = 2.0  # the usual collector thresholds from this long after initialize on
CODE_SAVE_DELAY_S = 3.0
# A workspace pull with nothing new is held at most this long, then answered as unchanged.
WORKSPACE_PULL_HOLD_S = 300.0  # after initialized: the code cache keeps cattrs' functions too


def initialize(ls: PanicLensServer, params: types.InitializeParams) -> None:
    """initializationOptions apply at once, so documents opened early are analysed right."""
    ls.init_options = params.initialization_options
    ls.settings = config.initial_settings(ls.init_options)
    if rule_files.load(ls):  # before the catalog: records bind to the rules in use
        ls.settings = config.initial_settings(ls.init_options)  # `severity` may name them
    config.reload_catalog(ls)
    with contextlib.suppress(RuntimeError):  # no event loop: nothing to overlap with
        asyncio.get_running_loop().call_soon(ls.warm_up)  # runs once our answer is sent
    if ls.collector_deferred:  # no document opened soon (or a pull client): all the same
        ls.start_collector_soon(STARTUP_COLLECT_S)


async def initialized(ls: PanicLensServer, params: types.InitializedParams) -> None:
    old = ls.settings
    changed = await config.refresh_settings(ls)  # a new `rules` setting: read already
    if (ls.settings.records, ls.settings.rules) != (old.records, old.rules):
        config.reload_catalog(ls)  # records bind to the rules in use; derived ones follow
    rule_files.publish(ls)  # a bad rule file's diagnostic (none may be sent before now)
    ls.settle(changed)
    await scan.register_watchers(ls)
    scan.start_scan(ls, delay=scan.FIRST_SCAN_DELAY_S)
    # by then cattrs has compiled the (un)structure functions of the start-up messages
    asyncio.get_running_loop().call_later(CODE_SAVE_DELAY_S, _after_start_up)


def _after_start_up() -> None:
    codecache.save()
    _actions(), _commands()  # before the first code action or command needs them


def did_open(ls: PanicLensServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    if not ls.is_source(uri):
        record_files.opened(ls, uri)  # a records file: its records' coverage
        return
    if not ls.settled:  # analysed by `settle` once the client's settings are in
        ls.dirty.add(uri)
        return
    ls.refresh(uri)


def did_change(ls: PanicLensServer, params: types.DidChangeTextDocumentParams) -> None:
    if ls.is_source(params.text_document.uri):
        ls.changed(params.text_document.uri)
    else:
        record_files.opened(ls, params.text_document.uri)


def did_save(ls: PanicLensServer, params: types.DidSaveTextDocumentParams) -> None:
    """A saved Cargo.toml or Cargo.lock changes the crate context of every file; a saved rule
    file, the rules (also for a client that watches no files for us)."""
    uri = params.text_document.uri
    if ls.is_source(uri):
        ls.snapshots.pop(uri, None)  # a full analysis: other files may have changed too
        ls.refresh(uri)
    elif uri.endswith("/Cargo.toml"):  # its `rules` may name other folders
        scan.reload_rules(ls)
        ls.reanalyze_all()
    elif uri.endswith("/Cargo.lock"):
        ls.reanalyze_all()
    elif (path := to_fs_path(uri)) and rule_files.is_rule_file(ls, Path(path)):
        rule_files.reload(ls)
    else:
        record_files.opened(ls, uri)


def did_close(ls: PanicLensServer, params: types.DidCloseTextDocumentParams) -> None:
    """Empty diagnostics; with workspace scope the saved Rust file's findings come back from
    disk (a JSON or TOML file a client sent is not Rust to analyse)."""
    uri = params.text_document.uri
    ls.forget(uri)
    ls.publish_empty(uri)
    path = to_fs_path(uri)
    if ls.settings.scope != "workspace" or not path or not ls.is_source(uri):
        return
    if (result := ls.analyze_disk(Path(path))) is not None and result.analysis.findings:
        ls.publish(result)


async def diagnostic(
    ls: PanicLensServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    uri = params.text_document.uri
    await ls.settled_or_timeout()
    if (rule_report := rule_files.report(ls, uri)) is not None:
        return rule_report
    if (record_report := record_files.report(ls, uri)) is not None:
        return record_report
    if not ls.is_source(uri):  # other JSON or TOML a client sent: not Rust to analyse
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    result = ls.known(uri)
    if result is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    if params.previous_result_id == result.result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result.result_id)
    return types.RelatedFullDocumentDiagnosticReport(
        items=ls.diagnostics(result), result_id=result.result_id
    )


async def workspace_diagnostic(
    ls: PanicLensServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """LSP's long poll: a pull that would only report unchanged documents is held until a
    document's diagnostics change (or the client cancels it, or WORKSPACE_PULL_HOLD_S pass),
    so an idle editor does not poll. The first pull (no previous results) is answered at once."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WORKSPACE_PULL_HOLD_S
    previous = {p.uri: p.value for p in params.previous_result_ids}
    while True:
        for uri in list(ls.dirty):  # edited since the last analysis
            ls.known(uri)
        items, changed = _workspace_items(ls, previous)
        remaining = deadline - loop.time()
        if changed or not previous or remaining <= 0:
            return types.WorkspaceDiagnosticReport(items=items)
        await ls.next_results_change(remaining)


def _workspace_items(ls: PanicLensServer, previous: dict[str, str]) -> tuple[list[Any], bool]:
    """Every known document's report, and whether any differs from what the client has (a
    document it has that is gone gets an empty full report)."""
    items: list[Any] = []
    changed = False
    known = {**ls.disk, **ls.open}
    for uri, result in known.items():
        if previous.get(uri) == result.result_id:
            items.append(
                types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=result.version, result_id=result.result_id
                )
            )
        else:
            changed = True
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri,
                    version=result.version,
                    items=ls.diagnostics(result),
                    result_id=result.result_id,
                )
            )
    for uri in previous.keys() - known.keys():
        changed = True
        items.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=None, items=[]))
    return items, changed


def hover(ls: PanicLensServer, params: types.HoverParams) -> types.Hover | None:
    if not ls.is_source(params.text_document.uri):
        return record_files.hover(ls, params.text_document.uri, params.position)
    result = ls.known(params.text_document.uri)
    if result is None:
        return None
    return lsp_hover(result.analysis, result.index, params.position, ls.catalog)


def code_action(
    ls: PanicLensServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    if not ls.is_source(params.text_document.uri):
        return None
    result = ls.known(params.text_document.uri)
    if result is None:
        return None
    return _actions().lsp_code_actions(ls, result, params) or None


def code_action_resolve(ls: PanicLensServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    uri = str(data.get("uri"))
    result = ls.known(uri) if ls.result(uri) is not None else None
    if result is not None and action.edit is None:
        action.edit = _actions().action_edit(result, data)
    return action


async def did_change_configuration(
    ls: PanicLensServer, params: types.DidChangeConfigurationParams
) -> None:
    old = ls.settings
    if await config.refresh_settings(ls, params.settings):
        await scan.settings_changed(ls, old)


def did_change_workspace_folders(
    ls: PanicLensServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    """pygls has updated the folder list: forget removed folders' files, scan the new set."""
    scan.folders_changed(ls, [f.uri for f in params.event.removed])


def did_change_watched_files(
    ls: PanicLensServer, params: types.DidChangeWatchedFilesParams
) -> None:
    scan.on_watched_files(ls, list(params.changes))


def _actions() -> ModuleType:
    from panic_lens.lsp import actions

    return actions


def _commands() -> ModuleType:
    from panic_lens.lsp import commands

    return commands


def _command(name: str) -> Callable[..., Awaitable[Any]]:
    """The command function `name` of lsp/commands.py, imported when first run; bad arguments
    become an InvalidParams error, not an internal one."""

    async def handler(ls: PanicLensServer, *args: Any) -> Any:
        commands = _commands()
        try:
            value = getattr(commands, name)(ls, list(args))
            return await value if isinstance(value, Awaitable) else value
        except commands.CommandError as exc:
            raise JsonRpcInvalidParams(str(exc)) from exc

    return handler


_FEATURES: list[tuple[str, Callable[..., Any], Any]] = [
    (types.INITIALIZE, initialize, None),
    (types.INITIALIZED, initialized, None),
    (types.TEXT_DOCUMENT_DID_OPEN, did_open, None),
    (types.TEXT_DOCUMENT_DID_CHANGE, did_change, None),
    (types.TEXT_DOCUMENT_DID_SAVE, did_save, types.SaveOptions(include_text=False)),
    (types.TEXT_DOCUMENT_DID_CLOSE, did_close, None),
    (
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        diagnostic,
        types.DiagnosticOptions(
            identifier=DIAGNOSTIC_IDENTIFIER,
            inter_file_dependencies=True,
            workspace_diagnostics=True,
        ),
    ),
    (types.WORKSPACE_DIAGNOSTIC, workspace_diagnostic, None),
    (types.TEXT_DOCUMENT_HOVER, hover, None),
    (
        types.TEXT_DOCUMENT_CODE_ACTION,
        code_action,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, identifiers.FIX_ALL],
            resolve_provider=True,
        ),
    ),
    (types.CODE_ACTION_RESOLVE, code_action_resolve, None),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, did_change_configuration, None),
    (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, did_change_watched_files, None),
    (types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, did_change_workspace_folders, None),
]


def make_server() -> PanicLensServer:
    ls = PanicLensServer()
    attach_client_log(ls)
    ls.reanalyze_hooks.append(lambda: record_files.refresh_all(ls))
    for method, handler, options in _FEATURES:
        ls.feature(method, options)(handler)
    for name, function in COMMANDS.items():
        ls.command(name)(_command(function))
    return ls


def run(
    tcp: str | None = None,
    log_level: str | None = None,
    handover: Handover | None = None,
    collector_off: bool = False,
) -> int:
    """Serve on stdio, or on TCP `[HOST:]PORT` (loopback unless a host is given). `handover`:
    what `quickstart` read and sent before pygls was loaded (stdio only). `collector_off`: the
    caller turned the cycle collector off; the first publish turns it on again."""
    setup_logging(log_level)
    ls = make_server()
    ls.collector_deferred = collector_off
    codecache.save()  # lsprotocol's classes are all built by now
    if tcp is None:
        serve_stdio(ls, handover)
        # LSP: exit code 0 only after a shutdown request (pygls's own sys.exit(1) is swallowed
        # inside its handler, so the process would always report success).
        return 0 if pygls_compat.shutdown_received(ls.protocol) else 1
    host, _, port = tcp.rpartition(":")
    if not port.isdigit():
        print(f"panic-lens serve: bad --tcp value {tcp!r}; expected [HOST:]PORT", file=sys.stderr)
        return 2
    # pygls's exit handler calls sys.exit inside a callback, which does not stop a TCP server;
    # closing the listening socket ends start_tcp instead.
    ls.feature(types.EXIT)(lambda server, *args: server.shutdown())
    ls.start_tcp(host or "127.0.0.1", int(port))
    return 0


def serve_stdio(ls: PanicLensServer, handover: Handover | None = None) -> None:
    """pygls's stdio loop, but reading through an asyncio pipe instead of a thread per line.

    Messages already received are then all handled before any queued analysis runs, so a burst
    of didChange is analysed once; pygls's thread reader yielded to the loop after each line.
    Windows and a stdin that is neither a pipe nor a socket keep pygls's own reader (the quick
    start needs one of those too).
    `handover`: the bytes the quick start read are read first (see quickstart.py).
    """
    stdin = sys.stdin.buffer
    if not quickstart.is_stream(stdin.fileno(), sys.stdout.buffer.fileno()):
        ls.start_io()
        return
    stop = pygls_compat.install_stop_event(ls)  # ls.shutdown() sets it to end the loop
    writer: Any = ClosedAware(pygls_compat.StdoutWriter(sys.stdout.buffer), sys.stdout.buffer)
    if handover is not None and handover.init_id is not None:
        writer = InitializeAnswer(writer, handover)
        ls.quick_published = dict(handover.published)
        if handover.asked and isinstance(ls.protocol, PanicLensProtocol):
            ls.protocol.ignored_responses.add(quickstart.CONFIG_ID)  # its late answer is not ours
    ls.protocol.set_writer(writer)

    async def loop() -> None:
        reader = asyncio.StreamReader(limit=2**26)
        if handover is not None:
            reader.feed_data(handover.data)
        await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), stdin
        )
        await pygls_compat.run_async(stop, reader, ls.protocol, logger, ls.report_server_error)

    try:
        asyncio.run(loop())
    except (BrokenPipeError, asyncio.IncompleteReadError):  # the client went away mid-message
        logger.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        ls.shutdown()


class ClosedAware:
    """pygls's writer, dropping what is sent once stdout is closed. After `exit` pygls closes
    stdout and ends the loop with SystemExit; asyncio then cancels the pending tasks (the
    workspace scan, progress, watcher registrations), whose last messages can no longer go
    anywhere. Each used to log a 40-line traceback to stderr, which the editor shows: enough,
    in VS Code, to rotate the start of the session out of its log."""

    def __init__(self, writer: Any, stream: Any) -> None:
        self.writer = writer
        self.stream = stream
        self.dropped = 0

    def write(self, data: bytes) -> Any:
        if getattr(self.stream, "closed", False):
            self.dropped += 1
            return None
        try:
            return self.writer.write(data)
        except (BrokenPipeError, ValueError):  # closed between the check and the write
            self.dropped += 1
            return None

    def close(self) -> Any:
        return self.writer.close()


class InitializeAnswer:
    """pygls's writer, watching for its answer to the `initialize` the quick start read: kept
    for the next start when the quick start had none to send; else not sent again, and kept
    anew if it differs from the stored one the client got (then a warning: this session's
    client has that older answer)."""

    def __init__(self, writer: Any, handover: Handover) -> None:
        self.writer = writer
        self.handover = handover
        self.pending = True

    def write(self, data: bytes) -> Any:
        if self.pending and (result := self._answer(data)) is not None:
            self.pending = False
            handover, store = self.handover, self.handover.store
            if handover.answered is None:
                if store is not None:
                    quickstart.write_answer(store, result)
            else:
                if result != handover.answered:
                    logger.warning("the stored answer to initialize was out of date; renewed")
                    if store is not None:
                        quickstart.write_answer(store, result)
                return None
        return self.writer.write(data)

    def _answer(self, data: bytes) -> dict[str, Any] | None:
        """The result in `data` when it is the answer to the quick start's initialize."""
        _, sep, body = data.partition(b"\r\n\r\n")
        try:
            message = json.loads(body if sep else data)
        except ValueError:
            return None
        if not isinstance(message, dict) or "method" in message:
            return None
        if message.get("id") != self.handover.init_id or "id" not in message:
            return None
        result = message.get("result")
        if not isinstance(result, dict):  # an error answer: the next start asks pygls again
            self.pending = False
            return None
        return result

    def close(self) -> Any:
        return self.writer.close()

"""The workspace scan (every `.rs` file, with work-done progress) and watched-file changes.

A workspace with enough Rust source is read, prefiltered and analysed in worker processes, the
pool `check` uses (panic_lens.batch), and the results are taken in and published as each task
comes back, so the event loop stays free for requests; a small one is analysed here, yielding
between files. The user may cancel the scan from its progress; a newer scan supersedes an
older one.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from panic_lens import batch, batch_workers, engine
from panic_lens.lsp import rule_files
from panic_lens.lsp.config import record_paths, reload_catalog
from panic_lens.lsp.session import file_uri
from panic_lens.model import Analysis
from panic_lens.prefilter import Prefilter
from panic_lens.settings import Settings

if TYPE_CHECKING:
    from panic_lens.lsp.session import PanicLensServer

logger = logging.getLogger(__name__)
CRATE_FILES = ("Cargo.toml", "Cargo.lock")
RECORD_SUFFIXES = (".json", ".jsonl", ".txt")
REPORT_EVERY = 20
# Below this much Rust source the scan runs here: starting worker processes costs more.
WORKER_MIN_BYTES = batch.PARALLEL_MIN_BYTES
# Results taken in from the workers between two yields to the event loop.
TAKE_EVERY = 8
# The first scan waits this long: editors open their visible documents just after `initialized`
FIRST_SCAN_DELAY_S = 0.05


async def scan_workspace(ls: PanicLensServer, delay: float = 0.0) -> tuple[int, int]:
    """Analyse every `.rs` file of the workspace folders; returns (files, findings).

    `delay` (seconds) lets the documents an editor opens right after `initialized` be analysed
    first: listing the folders and the first file would otherwise come before them."""
    ls.scan_count += 1
    generation = ls.scan_count
    if delay:
        await asyncio.sleep(delay)
        if generation != ls.scan_count:
            return 0, 0
    files = list(engine.iter_rust_files([str(r) for r in ls.workspace_roots() if r.is_dir()]))
    token = await _begin_progress(ls, len(files))

    def stopped() -> bool:  # superseded, or cancelled by the user
        return generation != ls.scan_count or _cancelled(ls, token)

    paths = [str(f) for f in files]
    sizes = batch.file_sizes(paths)
    if sum(sizes) >= WORKER_MIN_BYTES:
        done, found = await _scan_in_workers(ls, paths, sizes, token, stopped)
    else:
        done, found = await _scan_here(ls, files, token, stopped)
    cut = "" if done == len(files) else f" (stopped after {done} of {len(files)})"
    message = f"{done} files, {found} findings{cut}"
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
    if ls.pull and ls.client_supports("workspace.diagnostics.refresh_support"):
        ls.workspace_diagnostic_refresh(None)
    logger.info("workspace scan: %s", message)
    return done, found


async def _scan_here(
    ls: PanicLensServer, files: list[Path], token: str | None, stopped: Callable[[], bool]
) -> tuple[int, int]:
    """(files done, findings): each file analysed in this process, yielding between files."""
    found = done = 0
    prefilter = Prefilter({})
    for path in files:
        if stopped():
            break
        found += _scan_one(ls, path, prefilter)
        done += 1
        if token is not None and done % REPORT_EVERY == 0:
            _report(ls, token, done, len(files))
        await asyncio.sleep(0)
    return done, found


async def _scan_in_workers(
    ls: PanicLensServer,
    paths: list[str],
    sizes: list[int],
    token: str | None,
    stopped: Callable[[], bool],
) -> tuple[int, int]:
    """(files done, findings): `check`'s worker pool reads, prefilters and analyses the files;
    each task's results are published as it comes back."""
    jobs = batch.default_jobs()
    loop = asyncio.get_running_loop()
    pool = batch_workers.fork_pool(jobs, ls.settings, ls.catalog, None)
    tasks = batch.scan_tasks(paths, sizes, jobs)
    scan = batch_workers.scan_in_worker
    futures = [asyncio.wrap_future(pool.submit(scan, t), loop=loop) for t in tasks]
    found = done = 0
    reported = 0
    try:
        for arrived in asyncio.as_completed(futures):
            scanned = await arrived
            for path, error, analysis in scanned:
                if stopped():
                    return done, found
                found += _take(ls, Path(path), error, analysis)
                done += 1
                if done % TAKE_EVERY == 0:
                    await asyncio.sleep(0)  # requests first
            if token is not None and done // REPORT_EVERY > reported:
                reported = done // REPORT_EVERY
                _report(ls, token, done, len(paths))
        return done, found
    finally:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
        gc.unfreeze()  # fork_pool froze the objects the workers share


def _take(ls: PanicLensServer, path: Path, error: str | None, analysis: Analysis | None) -> int:
    """A worker's result for `path` (its read error, or None when the prefilter skipped it),
    kept and published as `_scan_one` does; returns its number of findings."""
    uri = file_uri(path)
    if uri in ls.open:  # the editor's buffer is the truth for open files
        return 0
    before = ls.disk.get(uri)
    data = None
    if error is None and analysis is not None:
        try:
            data = path.read_bytes()  # for the line index and the result id
        except OSError as exc:
            error = exc.strerror or str(exc)
    if data is None or analysis is None:
        if error is not None:
            logger.info("cannot read %s: %s", path, error)
        ls.disk.pop(uri, None)
        if before is not None and before.analysis.findings:
            ls.publish_empty(uri)
        return 0
    result = ls.keep_disk(uri, ls.file_result(uri, str(path), data, None, analysis))
    if result.analysis.findings or (before is not None and before.analysis.findings):
        ls.publish(result)
    return len(result.analysis.findings)


def _scan_one(ls: PanicLensServer, path: Path, prefilter: Prefilter) -> int:
    uri = file_uri(path)
    before = ls.disk.get(uri)
    if uri not in ls.open and not _may_have_findings(path, prefilter):
        ls.disk.pop(uri, None)  # no rule can fire in it: nothing to analyse or keep
        if before is not None and before.analysis.findings:
            ls.publish_empty(uri)
        return 0
    if uri in ls.open or (result := ls.analyze_disk(path)) is None:
        return 0
    # an empty list only where the client may still show old findings: no flood of empties
    if result.analysis.findings or (before is not None and before.analysis.findings):
        ls.publish(result)
    return len(result.analysis.findings)


def _may_have_findings(path: Path, prefilter: Prefilter) -> bool:
    """The batch check's byte prefilter (unreadable files go on, to be reported)."""
    try:
        return prefilter.keeps(str(path), path.read_bytes())
    except OSError:
        return True


async def _begin_progress(ls: PanicLensServer, total: int) -> str | None:
    if not ls.client_supports("window.work_done_progress"):
        return None
    token = f"panic-lens/scan/{uuid.uuid4().hex[:8]}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception as exc:
        logger.info("client refused a progress token: %s", exc)
        return None
    begin = types.WorkDoneProgressBegin(
        title="panic-lens: scanning workspace",
        message=f"0/{total} files",
        percentage=0,
        cancellable=True,
    )
    ls.work_done_progress.begin(token, begin)
    return token


def _cancelled(ls: PanicLensServer, token: str | None) -> bool:
    future = ls.work_done_progress.tokens.get(token) if token is not None else None
    return bool(future is not None and future.cancelled())


def _report(ls: PanicLensServer, token: str, done: int, total: int) -> None:
    value = types.WorkDoneProgressReport(
        message=f"{done}/{total} files", percentage=done * 100 // max(total, 1)
    )
    ls.work_done_progress.report(token, value)


def start_scan(ls: PanicLensServer, delay: float = 0.0) -> asyncio.Task[tuple[int, int]] | None:
    """Start a background scan unless `scope` limits analysis to open files."""
    if ls.settings.scope != "workspace":
        return None
    task = asyncio.ensure_future(scan_workspace(ls, delay))
    task.add_done_callback(_log_failure)
    return task


def _log_failure(task: asyncio.Future[tuple[int, int]]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        logger.error("workspace scan failed", exc_info=exc)


def folders_changed(ls: PanicLensServer, removed: list[str]) -> None:
    roots = [p for uri in removed if (p := to_fs_path(uri))]
    for uri, result in list(ls.disk.items()):
        if result.path and any(Path(result.path).is_relative_to(r) for r in roots):
            del ls.disk[uri]
            if uri not in ls.open:
                ls.publish_empty(uri)
    start_scan(ls)


def on_watched_files(ls: PanicLensServer, changes: list[types.FileEvent]) -> None:
    """React to file events: a record or crate file reanalyses everything; `.rs` just itself."""
    paths = [(Path(p), c.type) for c in changes if (p := to_fs_path(c.uri))]
    manifest = any(p.name == "Cargo.toml" for p, _ in paths)
    if manifest or any(rule_files.is_rule_file(ls, p) for p, _ in paths):
        reload_rules(ls)  # a manifest's `rules` may name other folders
    if manifest or any(is_record_file(ls, p) for p, _ in paths):  # and its `records`
        reload_catalog(ls)
        ls.reanalyze_all()
        return
    if any(p.name in CRATE_FILES or rule_files.is_rule_file(ls, p) for p, _ in paths):
        ls.reanalyze_all()
        return
    for path, kind in paths:
        if path.suffix == ".rs":
            _rust_file_changed(ls, path, kind)


def _rust_file_changed(ls: PanicLensServer, path: Path, kind: types.FileChangeType) -> None:
    uri = file_uri(path)
    if uri in ls.open:  # the editor's buffer is the truth for open files
        return
    if kind == types.FileChangeType.Deleted or ls.settings.scope != "workspace":
        if ls.disk.pop(uri, None) is not None:
            ls.publish_empty(uri)
        return
    if (result := ls.analyze_disk(path)) is not None:
        ls.publish(result)


def is_record_file(ls: PanicLensServer, path: Path) -> bool:
    if path.suffix not in RECORD_SUFFIXES:
        return False
    resolved = path.absolute()
    return any(resolved == r or r in resolved.parents for r in _record_roots(ls))


def _record_roots(ls: PanicLensServer) -> list[Path]:
    return [p.absolute() for p in record_paths(ls)]


def watchers(ls: PanicLensServer) -> list[types.FileSystemWatcher]:
    globs = ["**/*.rs", "**/Cargo.toml", "**/Cargo.lock"]
    for root in _record_roots(ls):
        globs.append(str(root) if root.suffix else f"{root}/**/*")
    globs += rule_files.watch_globs(ls)
    return [types.FileSystemWatcher(glob_pattern=g) for g in globs]


async def settings_changed(ls: PanicLensServer, old: Settings) -> None:
    """New records: reload and watch them; openFiles: forget disk results; then reanalyse."""
    if ls.settings.rules != old.rules:  # read by config.refresh_settings
        rule_files.publish(ls)
    if ls.settings.records != old.records or ls.settings.rules != old.rules:
        reload_catalog(ls)  # records bind to the rules in use, derived ones are made again
        await register_watchers(ls)
    if ls.settings.scope != "workspace":
        for uri in [u for u in ls.disk if u not in ls.open]:
            ls.publish_empty(uri)
        ls.disk.clear()
    ls.reanalyze_all()
    start_scan(ls)


def reload_rules(ls: PanicLensServer) -> None:
    """Read the rule folders again (lsp/rule_files.py) and publish the rule files'
    diagnostics; when the folders changed (a Cargo.toml's `rules`), watch the new ones."""
    folders = ls.rule_folders
    if rule_files.load(ls):  # a hand-written rule may now cover a record a rule was derived
        reload_catalog(ls)  # from: derive again, as `check` does after reading the rules
    rule_files.publish(ls)
    if ls.rule_folders != folders:
        task = asyncio.ensure_future(register_watchers(ls))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())


WATCHERS_ID = "panic-lens-watchers"


async def register_watchers(ls: PanicLensServer) -> None:
    """Ask the client to watch our files (again, after the record paths changed), when it
    allows dynamic registration."""
    if not ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
        return
    method = types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    async with ls.watchers_lock:  # a second call waits, then replaces the first's watchers
        await _register(ls, method)


async def _register(ls: PanicLensServer, method: str) -> None:
    """Replace the watchers in force (if any) with the current ones. Each refusal is logged as
    what it is: a client that refuses to unregister keeps the old watchers (the new ones are
    asked for beside them, under another id); one that refuses to register leaves the old
    watchers, or none."""
    old = ls.watchers_id
    if old is not None:
        try:
            gone = types.Unregistration(id=old, method=method)
            await ls.client_unregister_capability_async(
                types.UnregistrationParams(unregisterations=[gone])
            )
            ls.watchers_id = None
        except Exception as exc:
            logger.warning(
                "client refused client/unregisterCapability of the file watchers registered"
                " before (%s): %s; they stay in force, the new ones are asked for beside them",
                old,
                exc,
            )
    new = WATCHERS_ID if ls.watchers_id is None else f"{WATCHERS_ID}-{next(_WATCHER_IDS)}"
    options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers(ls))
    reg = types.Registration(id=new, method=method, register_options=options)
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[reg]))
    except Exception as exc:
        if ls.watchers_id is None:
            logger.info("client refused file watchers: %s; no file watchers are in force", exc)
        else:
            logger.info(
                "client refused the new file watchers: %s; those registered before (%s) stay"
                " in force",
                exc,
                ls.watchers_id,
            )
        return
    ls.watchers_id = new


_WATCHER_IDS = itertools.count(2)  # ids of watchers asked for while older ones stay in force

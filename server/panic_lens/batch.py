"""Fast `check` over many files: a byte-level prefilter, the content-hash cache, and
processes.

Gives exactly `engine.check_paths`'s result (tests compare the two on the same trees): a file the
prefilter skips cannot contain a call of any rule's API, and cached entries are keyed by
everything an analysis depends on.
"""

from __future__ import annotations

import gc
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from panic_lens.batch_workers import (
    CheckFilter,
    Done,
    Item,
    _analyse_in_worker,
    _analyse_one,
    _keep_analysed,
    fork_pool,
    scan_in_worker,
)
from panic_lens.cache import (
    AnalysisCache,
    CrateDigests,
    Manifests,
    StatIndex,
    StatKey,
    code_fingerprint,
    digest,
    key_for_digest,
    records_fingerprint,
    stat_key,
)
from panic_lens.model import Analysis, Finding
from panic_lens.prefilter import Prefilter
from panic_lens.rules.meta import (
    added_rule_examples,
)
from panic_lens.walk import (
    CheckResult,
    Listing,
    PathError,
    iter_rust_paths,
)

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from panic_lens.catalog import Catalog
    from panic_lens.rust.memo import CrateMemo
    from panic_lens.settings import Settings

# Below this much source to analyse, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 256 * 1024
# At most this much source goes to a worker at a time (a crate's run of files is split above).
BATCH_BYTES = 256 * 1024
# Without a cache, a tree of at least this much Rust source is read, prefiltered and analysed
# by the workers (`_scan_in_workers`): the parent only walks, where reading and prefiltering
# every file on its own would keep one core busy while the other waits for the first
# candidates.
SCAN_MIN_BYTES = 2 * 1024 * 1024
# A crate's run of files goes to one worker whole unless it is more than 1/(SCAN_SHARE * jobs)
# of the work not yet handed out; then it is split into pieces of at most that, and at least
# SCAN_PIECE_BYTES (`scan_tasks`).
SCAN_SHARE = 2
SCAN_PIECE_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class BatchStats:
    """What a run did: files read, prefilter candidates, cache hits, files analysed, workers."""

    files: int
    candidates: int
    cache_hits: int
    analysed: int
    workers: int
    files_read: int = 0  # files whose bytes were read (the stat index spares unchanged ones)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
    cache: AnalysisCache | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> CheckResult:
    """`engine.check_paths`, faster: same findings, errors and file count. `progress` hears
    how many files there are and, as it goes, how many are done (skipped, cached, analysed)."""
    return run_check(
        paths, settings=settings, catalog=catalog, cache=cache, jobs=jobs, progress=progress
    )[0]


class Progress(Protocol):
    """What `check_paths` reports its progress to (`commands.progress.Bar`). `advance` may be
    called from another thread (a worker's result arriving)."""

    def start(self, total: int) -> None: ...

    def advance(self, files: int) -> None: ...


def _advancing(progress: Progress, files: int) -> Callable[[Future[Any]], None]:
    """A future's done-callback: `files` more are done (it runs in the pool's thread)."""

    def done(_: Future[Any]) -> None:
        progress.advance(files)

    return done


class _NoProgress:
    def start(self, total: int) -> None:
        pass

    def advance(self, files: int) -> None:
        pass


def run_check(
    paths: Sequence[str | os.PathLike[str]],
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
    cache: AnalysisCache | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> tuple[CheckResult, BatchStats]:
    """check_paths plus the run's statistics (the benchmark and the tests read them).

    Without a cache, a large tree is read, prefiltered and analysed by worker processes
    (`_scan_in_workers`). Otherwise candidates go to the analyser as the prefilter finds them:
    once there is enough source to pay for worker processes, the workers analyse while this
    process still reads, prefilters and looks up the cache."""
    errors = [PathError(str(p), "no such file or directory") for p in paths if not Path(p).exists()]
    listings: dict[str, Listing] = {}  # the folders walked, for the crate digests
    walked = iter_rust_paths(
        [p for p in paths if Path(p).exists()],
        listings if cache else None,
        skip=added_rule_examples(),
    )
    files = list(walked)
    progress = progress if progress is not None else _NoProgress()
    progress.start(len(files))
    if catalog is None:
        from panic_lens.engine import default_catalog

        catalog = default_catalog()
    jobs = jobs if jobs is not None else default_jobs()
    sizes = file_sizes(files) if cache is None and jobs > 1 else None
    if sizes is not None and sum(sizes) >= SCAN_MIN_BYTES:
        return _scan_in_workers(files, sizes, errors, settings, catalog, jobs, progress)
    index = cache.stat_index() if cache is not None else None
    sources = WalkedFiles(index)
    order: list[str] = []
    for file in files:
        try:
            sources.open(file)
        except OSError as exc:
            errors.append(PathError(file, exc.strerror or str(exc)))
            progress.advance(1)
            continue
        order.append(file)
    analyser = Analyser(settings, catalog, cache, jobs, progress)
    try:
        if cache is None:
            manifests = Manifests()
            prefilter = CheckFilter(sources.data, manifests)
            candidates = []
            for path in order:
                data = sources.bytes_of(path)
                if prefilter.keeps(path, data):
                    candidates.append(path)
                    may_fire = prefilter.rules_for(path, data)
                    analyser.submit(path, data, None, manifests.of(path), may_fire)
                else:
                    progress.advance(1)
            hits: dict[str, Analysis] = {}
        else:
            candidates, hits = _from_cache(
                order, sources, settings, catalog, cache, analyser, listings
            )
        done = {**hits, **analyser.results()}
    finally:
        analyser.close()
        _keep_analysed(0)  # (`_analyse_one` keeps a few trees while this run analyses here)
    if cache is not None and index is not None:
        index.save()
        if cache.writes or analyser.writes:
            cache.prune()
    stats = BatchStats(
        len(order),
        len(candidates),
        len(hits),
        len(candidates) - len(hits),
        analyser.workers,
        len(sources.data),
    )
    return _check_result(order, done, errors), stats


def _scan_in_workers(
    files: list[str],
    sizes: list[int],
    errors: list[PathError],
    settings: Settings | None,
    catalog: Catalog | None,
    jobs: int,
    progress: Progress,
) -> tuple[CheckResult, BatchStats]:
    """`run_check` without a cache, with the reading and prefiltering in the workers too: the
    tasks of `scan_tasks` go to whichever worker is free, in their order."""
    pool = fork_pool(jobs, settings, catalog, None)
    try:
        futures = []
        for task in scan_tasks(files, sizes, jobs):
            futures.append(pool.submit(scan_in_worker, task))
            futures[-1].add_done_callback(_advancing(progress, len(task)))
        scanned = {path: (error, analysis) for f in futures for path, error, analysis in f.result()}
    finally:
        pool.shutdown(cancel_futures=True)
        gc.unfreeze()
    order: list[str] = []
    done: dict[str, Analysis] = {}
    for path in files:  # in walk order
        error, analysis = scanned[path]
        if error is not None:
            errors.append(PathError(path, error))
            continue
        order.append(path)
        if analysis is not None:
            done[path] = analysis
    stats = BatchStats(len(order), len(done), 0, len(done), jobs, len(order))
    return _check_result(order, done, errors), stats


def _check_result(
    order: list[str], done: dict[str, Analysis], errors: list[PathError]
) -> CheckResult:
    """The files' findings and notes in the engine's order (`order`: the files read)."""
    notes = dict.fromkeys(n for path in order if path in done for n in done[path].notes)
    return CheckResult(_ordered(order, done), tuple(errors), len(order), tuple(notes))


def scan_tasks(files: list[str], sizes: list[int], jobs: int) -> list[list[str]]:
    """The workers' tasks, in the order to hand them out: runs of one crate's files as walked,
    largest first. A run goes to one worker whole, so that the crate's aliases and renames are
    read once, unless it is more than 1/(SCAN_SHARE * jobs) of the work not yet handed out:
    then it goes in pieces of at most that. So the tasks shrink towards the end, and no worker
    waits long for another to finish a large one."""
    runs: list[tuple[list[str], list[int]]] = []
    key = None
    for file, file_size in zip(files, sizes, strict=True):
        crate = _crate_key(file)
        if not runs or crate != key:
            runs.append(([], []))
            key = crate
        runs[-1][0].append(file)
        runs[-1][1].append(file_size)
    runs.sort(key=lambda run: -sum(run[1]))
    remaining = sum(sizes)
    tasks: list[list[str]] = []
    for run_files, run_sizes in runs:
        start = 0
        while start < len(run_files):
            limit = max(SCAN_PIECE_BYTES, remaining // (SCAN_SHARE * jobs))
            end, taken = start + 1, run_sizes[start]
            while end < len(run_files) and taken + run_sizes[end] <= limit:
                taken += run_sizes[end]
                end += 1
            tasks.append(run_files[start:end])
            remaining -= taken
            start = end
    return tasks


def _crate_key(path: str) -> str:
    """Where a file's crate most likely is, without a lookup: the folder above its `src/`,
    else its own folder. Only for grouping: a wrong guess costs time, never results."""
    head, sep, _ = path.rpartition(f"{os.sep}src{os.sep}")
    return head if sep else os.path.dirname(path)


def file_sizes(files: list[str]) -> list[int]:
    """Stat sizes; a file that cannot be stat'ed counts as empty (reading it reports why)."""
    sizes = []
    for file in files:
        try:
            sizes.append(os.stat(file).st_size)
        except OSError:
            sizes.append(0)
    return sizes


def _from_cache(
    order: list[str],
    sources: WalkedFiles,
    settings: Settings | None,
    catalog: Catalog | None,
    cache: AnalysisCache,
    analyser: Analyser,
    listings: Mapping[str, Listing] | None = None,
) -> tuple[list[str], dict[str, Analysis]]:
    """Prefilter candidates (verdicts reused from the stat index when the file and its crate
    are unchanged) and cached analyses by path; each miss goes to `analyser` with its key
    (no key when the file changed after its stat: never store that analysis)."""
    manifests = Manifests(sources.is_link, sources.absolute)
    crates = CrateDigests(sources.digest_of, manifests, sources.index, listings)
    prefilter = CheckFilter(sources.data, manifests)
    records, code = records_fingerprint(catalog), code_fingerprint()
    candidates, hits = [], {}
    contexts: dict[str, str] = {}  # crate digest -> the verdicts' context
    for path in order:
        crate = crates.for_path(path)
        context = contexts.get(crate)
        if context is None:
            context = contexts[crate] = digest(f"{crate}\0{code}".encode())
        if not sources.keeps(path, context, prefilter):
            analyser.progress.advance(1)
            continue
        candidates.append(path)
        key = key_for_digest(
            sources.digest(path), path, settings=settings, crate=crate, records=records
        )
        hit = cache.get_reported(key)
        if hit is not None:
            hits[path] = hit
            analyser.progress.advance(1)
            continue
        data = sources.bytes_of(path)
        store = key if sources.unchanged(path) else None
        may_fire = prefilter.rules_for(path, data)
        analyser.submit(path, data, store, manifests.of(path), may_fire)
    return candidates, hits


class WalkedFiles:
    """The run's files, by path as walked. With a stat index, a file whose stat is unchanged
    is not read: its digest and prefilter verdict come from the index."""

    def __init__(self, index: StatIndex | None) -> None:
        self.index = index
        self.data: dict[str, bytes] = {}  # absolute path -> bytes (the prefilter reuses them)
        self._digests: dict[str, str] = {}
        self._stats: dict[str, StatKey] = {}
        self._verdicts: dict[str, tuple[str, bool]] = {}
        self._moved: set[str] = set()
        self._links: set[str] = set()  # files stat'ed through a symbolic link
        self._absolute: dict[str, str] = {}  # path as given -> absolute

    def absolute(self, path: str) -> str:
        """`os.path.abspath(path)`, computed once per path."""
        absolute = self._absolute.get(path)
        if absolute is None:
            absolute = self._absolute[path] = os.path.abspath(path)
        return absolute

    def open(self, path: str) -> None:
        """Stat, then read unless the index vouches for the content (stat before read: a
        write in between makes the stored stat stale, never the stored digest)."""
        absolute = self.absolute(path)
        if self.index is None:
            self.data[absolute] = Path(path).read_bytes()
            return
        now = time.time_ns()
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            self._links.add(absolute)
            st = os.stat(path)
        key = stat_key(st)
        self._stats[absolute] = key
        hit = self.index.lookup(absolute, key)
        if hit is not None:
            self._digests[absolute] = hit[0]
            self._verdicts[absolute] = (hit[1], hit[2])
            return
        data = Path(path).read_bytes()
        self.data[absolute], self._digests[absolute] = data, digest(data)
        self.index.record(absolute, key, self._digests[absolute], now)

    def is_link(self, path: str) -> bool:
        """Whether `path` is a symbolic link (known without a system call once opened)."""
        absolute = self.absolute(path)
        return absolute in self._links if absolute in self._stats else os.path.islink(path)

    def bytes_of(self, path: str) -> bytes:
        absolute = self.absolute(path)
        if absolute not in self.data:
            data = self.data[absolute] = Path(path).read_bytes()
            if absolute in self._digests and digest(data) != self._digests[absolute]:
                self._moved.add(absolute)  # written after its stat: analyse, do not store
        return self.data[absolute]

    def digest(self, path: str) -> str:
        absolute = self.absolute(path)
        if absolute not in self._digests:
            self._digests[absolute] = digest(self.bytes_of(path))
        return self._digests[absolute]

    def digest_of(self, file: str) -> str | None:
        """For crate digests: files of the crate outside the checked paths too."""
        known = self._digests.get(self.absolute(file))
        if known is not None:
            return known
        try:
            self.open(file)
            return self.digest(file)
        except OSError:
            return None

    def keeps(self, path: str, context: str, prefilter: Prefilter) -> bool:
        """The prefilter's verdict; reused when taken in the same crate and code context."""
        absolute = self.absolute(path)
        known = self._verdicts.get(absolute)
        if known is not None and known[0] == context:
            return known[1]
        keeps = prefilter.keeps(path, self.bytes_of(path))
        if self.index is not None and absolute in self._stats:
            self.index.set_verdict(absolute, self._stats[absolute], context, keeps)
        return keeps

    def unchanged(self, path: str) -> bool:
        """The bytes analysed are those the key was made from: a write after the stat must
        not store the new content's analysis under the old content's key."""
        return self.absolute(path) not in self._moved


def _ordered(order: list[str], done: dict[str, Analysis]) -> tuple[Finding, ...]:
    """Findings in the engine's order: files as walked, then (path, byte, rule)."""
    findings = [f for path in order if path in done for f in done[path].findings]
    findings.sort(key=lambda f: (f.path or "", f.span.start_byte, f.rule))
    return tuple(findings)


class Analyser:
    """Analyses files as they are submitted: in this process until the pending source is worth
    worker processes (PARALLEL_MIN_BYTES), then in a pool that starts right away, so the
    workers run while the caller goes on prefiltering. Files travel in batches, one per run of
    files of the same crate (split above BATCH_BYTES): a worker then parses the crate's module
    files once, where batches of mixed crates had both workers parse them. A result carries
    findings and notes only (all a check reports), stored under its key (when it has one)
    where it was made."""

    def __init__(
        self,
        settings: Settings | None,
        catalog: Catalog | None,
        cache: AnalysisCache | None,
        jobs: int | None,
        progress: Progress | None = None,
    ) -> None:
        self._settings, self._catalog, self._cache = settings, catalog, cache
        self.progress = progress if progress is not None else _NoProgress()
        self._memo: CrateMemo | None = None  # this process's, when it analyses (no pool)
        self._jobs = jobs if jobs is not None else default_jobs()
        self._queued: list[tuple[Item, object]] = []  # before the pool: items and crates
        self._queued_bytes = 0
        self._batch: list[Item] = []  # with the pool: the next batch, all of one crate
        self._batch_bytes = 0
        self._batch_crate: object = None
        self._pool: ProcessPoolExecutor | None = None
        self._frozen = False
        self._futures: list[Future[list[Done]]] = []
        self.workers = 1
        self.writes = 0  # entries stored, here or by workers

    def submit(
        self,
        path: str,
        data: bytes,
        key: str | None,
        crate: object = None,
        may_fire: frozenset[str] | None = None,
    ) -> None:
        """Analyse `path`; `crate` (its manifest) groups the files sent to one worker;
        `may_fire`: the rules that can fire in it (`Prefilter.rules_for`)."""
        item = (path, data, key, may_fire)
        if self._pool is not None:
            self._add(item, crate)
            return
        self._queued.append((item, crate))
        self._queued_bytes += len(data)
        if self._jobs > 1 and len(self._queued) > 1 and self._queued_bytes >= PARALLEL_MIN_BYTES:
            self._start_pool()

    def _add(self, item: Item, crate: object) -> None:
        if self._batch and crate != self._batch_crate:
            self._flush()
        self._batch.append(item)
        self._batch_bytes += len(item[1])
        self._batch_crate = crate
        if self._batch_bytes >= BATCH_BYTES:
            self._flush()

    def _flush(self) -> None:
        if self._pool is not None and self._batch:
            future = self._pool.submit(_analyse_in_worker, self._batch)
            future.add_done_callback(_advancing(self.progress, len(self._batch)))
            self._futures.append(future)
            self._batch, self._batch_bytes = [], 0

    def _start_pool(self) -> None:
        # here, not at start: a warm run with nothing to analyse needs no processes
        self._pool = fork_pool(self._jobs, self._settings, self._catalog, self._cache)
        self._frozen = True
        self.workers = self._jobs
        for item, crate in self._queued:
            self._add(item, crate)
        self._queued, self._queued_bytes = [], 0

    def results(self) -> dict[str, Analysis]:
        """Every submitted file's findings and notes, by path."""
        self._flush()
        done: list[Done] = []
        if self._queued and self._memo is None:
            from panic_lens.rust.memo import CrateMemo

            self._memo = CrateMemo()
        for (path, data, key, may_fire), _ in self._queued:  # no pool: analysed here
            args = (self._settings, self._catalog, self._cache, self._memo, may_fire)
            done.append(_analyse_one(path, data, key, *args))
            self.progress.advance(1)
        self._queued = []
        for future in self._futures:
            done.extend(future.result())
        self.writes += sum(wrote for _, _, wrote in done)
        return {path: analysis for path, analysis, _ in done}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

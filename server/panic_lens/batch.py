"""Fast `check` over many files: a byte-level prefilter, the content-hash cache, and processes.

Gives exactly `engine.check_paths`'s result (tests compare the two on the same trees): a file the
prefilter skips cannot contain a call of any rule's API, and cached entries are keyed by
everything an analysis depends on.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

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
from panic_lens.engine import (
    MAX_FILE_BYTES,
    CheckResult,
    PathError,
    analyze,
    default_catalog,
    is_binary,
    iter_rust_files,
)
from panic_lens.prefilter import Prefilter
from panic_lens.rules.base import Analysis, Finding
from panic_lens.settings import parse_settings

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog
    from panic_lens.settings import Settings

# Below this much source to analyse, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 256 * 1024


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
) -> CheckResult:
    """`engine.check_paths`, faster: same findings, errors and file count."""
    return run_check(paths, settings=settings, catalog=catalog, cache=cache, jobs=jobs)[0]


def run_check(
    paths: Sequence[str | os.PathLike[str]],
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
    cache: AnalysisCache | None = None,
    jobs: int | None = None,
) -> tuple[CheckResult, BatchStats]:
    """check_paths plus the run's statistics (the benchmark and the tests read them)."""
    errors = [PathError(str(p), "no such file or directory") for p in paths if not Path(p).exists()]
    index = cache.stat_index() if cache is not None else None
    sources = Sources(index)
    order: list[str] = []
    for file in iter_rust_files([p for p in paths if Path(p).exists()]):
        try:
            sources.open(str(file))
        except OSError as exc:
            errors.append(PathError(str(file), exc.strerror or str(exc)))
            continue
        order.append(str(file))
    catalog = catalog if catalog is not None else default_catalog()
    if cache is None:
        prefilter = CheckFilter(sources.data, Manifests())
        candidates = [p for p in order if prefilter.keeps(p, sources.bytes_of(p))]
        done: dict[str, Analysis] = {}
        keys: dict[str, str] = {}
    else:
        candidates, done, keys = _from_cache(order, sources, settings, catalog, cache)
    misses = [(p, sources.bytes_of(p)) for p in candidates if p not in done]
    workers = _workers(misses, jobs)
    for (path, _), analysis in zip(
        misses, _analyse(misses, settings, catalog, workers), strict=True
    ):
        done[path] = analysis
        if cache is not None and sources.unchanged(path):
            cache.put(keys[path], analysis)
    if cache is not None and index is not None:
        index.save()
        if cache.writes:
            cache.prune()
    findings = _ordered(order, done)
    notes = dict.fromkeys(n for path in order if path in done for n in done[path].notes)
    stats = BatchStats(
        len(order),
        len(candidates),
        len(candidates) - len(misses),
        len(misses),
        workers,
        len(sources.data),
    )
    notes = dict.fromkeys(n for path in order if path in done for n in done[path].notes)
    return CheckResult(findings, tuple(errors), len(order), tuple(notes)), stats


def _from_cache(
    order: list[str],
    sources: Sources,
    settings: Settings | None,
    catalog: Catalog | None,
    cache: AnalysisCache,
) -> tuple[list[str], dict[str, Analysis], dict[str, str]]:
    """Prefilter candidates (verdicts reused from the stat index when the file and its crate
    are unchanged), cached analyses by path, and every candidate's key."""
    manifests = Manifests()
    crates = CrateDigests(sources.digest_of, manifests)
    prefilter = CheckFilter(sources.data, manifests)
    records, code = records_fingerprint(catalog), code_fingerprint()
    candidates, keys = [], {}
    for path in order:
        crate = crates.for_path(path)
        if sources.keeps(path, digest(f"{crate}\0{code}".encode()), prefilter):
            candidates.append(path)
            keys[path] = key_for_digest(
                sources.digest(path), path, settings=settings, crate=crate, records=records
            )
    found = {
        path: hit for path, key in keys.items() if (hit := cache.get_reported(key)) is not None
    }
    return candidates, found, keys


class CheckFilter(Prefilter):
    """The prefilter, plus the files whose analysis the engine notes without any rule's call
    (binary, over the size limit, in a crate with a broken Cargo.toml or panic-lens table):
    analysing those keeps `CheckResult.notes` exactly the engine's."""

    def __init__(self, contents: Mapping[str, bytes], manifests: Manifests) -> None:
        super().__init__(contents, manifests.of)
        self._manifests_of = manifests.of
        self._noted: dict[Path, bool] = {}  # by manifest

    def keeps(self, path: str, data: bytes) -> bool:
        if len(data) > MAX_FILE_BYTES or is_binary(data):
            return True
        return super().keeps(path, data) or self._crate_noted(path)

    def _crate_noted(self, path: str) -> bool:
        from panic_lens.rust.crate import crate_context

        manifest = self._manifests_of(path)
        if manifest is None:
            return False  # no crate: nothing to note
        if manifest not in self._noted:
            crate = crate_context(path)  # the same for every file of the crate
            bad = bool(crate.metadata) and bool(parse_settings(crate.metadata).errors)
            self._noted[manifest] = bool(crate.errors) or bad
        return self._noted[manifest]


class Sources:
    """The run's files, by path as walked. With a stat index, a file whose stat is unchanged
    is not read: its digest and prefilter verdict come from the index."""

    def __init__(self, index: StatIndex | None) -> None:
        self.index = index
        self.data: dict[str, bytes] = {}  # absolute path -> bytes (the prefilter reuses them)
        self._digests: dict[str, str] = {}
        self._stats: dict[str, StatKey] = {}
        self._verdicts: dict[str, tuple[str, bool]] = {}
        self._moved: set[str] = set()

    def open(self, path: str) -> None:
        """Stat, then read unless the index vouches for the content (stat before read: a
        write in between makes the stored stat stale, never the stored digest)."""
        absolute = os.path.abspath(path)
        if self.index is None:
            self.data[absolute] = Path(path).read_bytes()
            return
        now = time.time_ns()
        key = stat_key(os.stat(path))
        self._stats[absolute] = key
        hit = self.index.lookup(absolute, key)
        if hit is not None:
            self._digests[absolute] = hit[0]
            self._verdicts[absolute] = (hit[1], hit[2])
            return
        data = Path(path).read_bytes()
        self.data[absolute], self._digests[absolute] = data, digest(data)
        self.index.record(absolute, key, self._digests[absolute], now)

    def bytes_of(self, path: str) -> bytes:
        absolute = os.path.abspath(path)
        if absolute not in self.data:
            data = self.data[absolute] = Path(path).read_bytes()
            if absolute in self._digests and digest(data) != self._digests[absolute]:
                self._moved.add(absolute)  # written after its stat: analyse, do not store
        return self.data[absolute]

    def digest(self, path: str) -> str:
        absolute = os.path.abspath(path)
        if absolute not in self._digests:
            self._digests[absolute] = digest(self.bytes_of(path))
        return self._digests[absolute]

    def digest_of(self, file: str) -> str | None:
        """For crate digests: files of the crate outside the checked paths too."""
        try:
            if os.path.abspath(file) not in self._digests:
                self.open(file)
            return self.digest(file)
        except OSError:
            return None

    def keeps(self, path: str, context: str, prefilter: Prefilter) -> bool:
        """The prefilter's verdict; reused when taken in the same crate and code context."""
        absolute = os.path.abspath(path)
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
        return os.path.abspath(path) not in self._moved


def _ordered(order: list[str], done: dict[str, Analysis]) -> tuple[Finding, ...]:
    """Findings in the engine's order: files as walked, then (path, byte, rule)."""
    findings = [f for path in order if path in done for f in done[path].findings]
    findings.sort(key=lambda f: (f.path or "", f.span.start_byte, f.rule))
    return tuple(findings)


def _workers(items: list[tuple[str, bytes]], jobs: int | None) -> int:
    jobs = jobs if jobs is not None else default_jobs()
    if jobs <= 1 or len(items) < 2 or sum(len(d) for _, d in items) < PARALLEL_MIN_BYTES:
        return 1
    return min(jobs, len(items))


def _analyse(
    items: list[tuple[str, bytes]], settings: Settings | None, catalog: Catalog | None, workers: int
) -> list[Analysis]:
    if workers <= 1:
        return [analyze(data, path, settings=settings, catalog=catalog) for path, data in items]
    # fork shares the loaded parsers, rules and catalog with the workers for free
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, len(items) // (workers * 8))
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init_worker, initargs=(settings, catalog)
    ) as pool:
        return list(pool.map(_analyse_in_worker, items, chunksize=chunk))


class _WorkerState:
    """Per worker process: the run's settings and catalog, set once by the initializer."""

    settings: Settings | None = None
    catalog: Catalog | None = None


def _init_worker(settings: Settings | None, catalog: Catalog | None) -> None:
    _WorkerState.settings = settings
    _WorkerState.catalog = catalog


def _analyse_in_worker(item: tuple[str, bytes]) -> Analysis:
    path, data = item
    return analyze(data, path, settings=_WorkerState.settings, catalog=_WorkerState.catalog)

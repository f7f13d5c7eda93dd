"""Fast `check` over many files: a byte-level prefilter, the content-hash cache, and processes.

Gives exactly `engine.check_paths`'s result (tests compare the two on the same trees): a file the
prefilter skips cannot contain a call of any rule's API, and cached entries are keyed by
everything an analysis depends on.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from panic_lens.cache import (
    AnalysisCache,
    CrateDigests,
    digest,
    entry_key,
    read_digest,
    records_fingerprint,
)
from panic_lens.engine import CheckResult, PathError, analyze, default_catalog, iter_rust_files
from panic_lens.prefilter import Prefilter
from panic_lens.rules.base import Analysis, Finding

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
    order: list[str] = []
    candidates: list[tuple[str, bytes]] = []
    contents: dict[str, bytes] = {}  # every file read, by absolute path: crates reuse them
    prefilter = Prefilter(contents)
    for file in iter_rust_files([p for p in paths if Path(p).exists()]):
        try:
            data = file.read_bytes()
        except OSError as exc:
            errors.append(PathError(str(file), exc.strerror or str(exc)))
            continue
        order.append(str(file))
        contents[os.path.abspath(file)] = data
    for path in order:
        data = contents[os.path.abspath(path)]
        if prefilter.keeps(path, data):
            candidates.append((path, data))
    catalog = catalog if catalog is not None else default_catalog()
    done, keys = _from_cache(candidates, settings, catalog, cache, contents)
    misses = [item for item in candidates if item[0] not in done]
    workers = _workers(misses, jobs)
    for (path, _), analysis in zip(
        misses, _analyse(misses, settings, catalog, workers), strict=True
    ):
        done[path] = analysis
        if cache is not None:
            cache.put(keys[path], analysis)
    if cache is not None and cache.writes:
        cache.prune()
    findings = _ordered(order, done)
    stats = BatchStats(
        len(order), len(candidates), len(candidates) - len(misses), len(misses), workers
    )
    return CheckResult(findings, tuple(errors), len(order)), stats


def _from_cache(
    items: list[tuple[str, bytes]],
    settings: Settings | None,
    catalog: Catalog | None,
    cache: AnalysisCache | None,
    contents: dict[str, bytes],
) -> tuple[dict[str, Analysis], dict[str, str]]:
    """Cached analyses by path, and the key of every candidate (for writing misses back)."""
    if cache is None:
        return {}, {}
    crates = CrateDigests(
        lambda p: digest(contents[str(p)]) if str(p) in contents else read_digest(p)
    )
    records = records_fingerprint(catalog)
    keys = {
        path: entry_key(data, path, settings=settings, crate=crates.for_path(path), records=records)
        for path, data in items
    }
    found = {path: hit for path, key in keys.items() if (hit := cache.get(key)) is not None}
    return found, keys


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

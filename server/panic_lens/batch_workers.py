"""The work each file of a `check` run goes through, in whichever process runs it: the run's
prefilter (`CheckFilter`) and one file's analysis (`_analyse_one`), and the worker processes
`batch` forks: their state, set once by the initializer, and the tasks they run (a batch of
files read by the parent, or files to read, prefilter and analyse themselves).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from panic_lens.cache import AnalysisCache, Manifests
from panic_lens.model import Analysis
from panic_lens.prefilter import Prefilter
from panic_lens.rules.meta import (
    RuleInfo,
    added_rules,
    derived_rules,
    set_added_rules,
    set_derived_rules,
)
from panic_lens.settings import parse_settings
from panic_lens.walk import MAX_FILE_BYTES, is_binary

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from panic_lens.catalog import Catalog
    from panic_lens.rust.memo import CrateMemo
    from panic_lens.settings import Settings

# path, content, cache key (None: do not store)
# path, bytes, cache key, the rules that can fire in it (None: any rule)
Item = tuple[str, bytes, str | None, frozenset[str] | None]
Done = tuple[str, Analysis, bool]  # path, findings and notes, whether an entry was stored
# path, its read error (None: read), and its analysis (None: the prefilter skipped it)
Scanned = tuple[str, str | None, Analysis | None]


class CheckFilter(Prefilter):
    """The prefilter, plus the files whose analysis the engine notes without any rule's call
    (binary, over the size limit, in a crate with a broken Cargo.toml or panic-lens table):
    analysing those keeps `CheckResult.notes` exactly the engine's."""

    def __init__(
        self,
        contents: Mapping[str, bytes],
        manifests: Manifests,
        read: Callable[[str], bytes] | None = None,
    ) -> None:
        super().__init__(contents, manifests.of, read)
        self._manifests_of = manifests.of
        self._noted: dict[Path, bool] = {}  # by manifest

    def keeps(self, path: str, data: bytes) -> bool:
        if len(data) > MAX_FILE_BYTES or is_binary(data):
            return True
        return super().keeps(path, data) or self._crate_noted(path)

    def _crate_noted(self, path: str) -> bool:
        from panic_lens.rust.crate import manifest_notes

        manifest = self._manifests_of(path)
        if manifest is None:
            return False  # no crate: nothing to note
        if manifest not in self._noted:
            errors, metadata = manifest_notes(manifest)  # the same for every file of the crate
            bad = bool(metadata) and bool(parse_settings(metadata).errors)
            self._noted[manifest] = bool(errors) or bad
        return self._noted[manifest]


# The trees of the last files analysed that a run keeps for the module loader (`rust.modules`):
# a crate's `mod.rs` analysed, its children load its scopes without parsing it again.
KEPT_ANALYSED = 16


def _keep_analysed(count: int) -> None:
    """`rust.modules.keep_analysed`, once something was analysed (a warm run that analyses
    nothing never loads the parser)."""
    modules = sys.modules.get("panic_lens.rust.modules")
    if modules is not None:
        modules.keep_analysed(count)


def fork_pool(
    jobs: int, settings: Settings | None, catalog: Catalog | None, cache: AnalysisCache | None
) -> ProcessPoolExecutor:
    """`jobs` workers, forked where the platform can. Fork shares the loaded parsers, rules
    and catalog with the workers for free, and what the rules load on first use, loaded here
    (`engine.warm_up`); frozen (the caller unfreezes after shutdown), those objects are never
    traversed by the workers' collections (nor copied on write by them)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from panic_lens import engine
    from panic_lens.rust import memo  # noqa: F401  the workers' crate memo (`_init_worker`)

    engine.warm_up(settings, catalog)
    gc.freeze()
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    initargs = (settings, catalog, cache, added_rules(), derived_rules())
    return ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=initargs
    )


def _analyse_one(
    path: str,
    data: bytes,
    key: str | None,
    settings: Settings | None,
    catalog: Catalog | None,
    cache: AnalysisCache | None,
    memo: CrateMemo | None,
    may_fire: frozenset[str] | None = None,
) -> Done:
    """One file's findings and notes (all `check` reports), stored under `key` when given."""
    from panic_lens.engine import analyze

    _keep_analysed(KEPT_ANALYSED)  # the engine loaded the module loader
    analysis = analyze(
        data, path, settings=settings, catalog=catalog, memo=memo, may_fire=may_fire,
        findings_only=True,
    )  # fmt: skip
    reported = Analysis(analysis.findings, (), analysis.notes)
    wrote = False
    if cache is not None and key is not None:
        before = cache.writes
        cache.put(key, reported)
        wrote = cache.writes > before
    return path, reported, wrote


class _WorkerState:
    """Per worker process: the run's settings, catalog and cache, set once by the initializer."""

    settings: Settings | None = None
    catalog: Catalog | None = None
    cache: AnalysisCache | None = None
    memo: CrateMemo | None = None  # crate lookups and renames, read once per worker (one run)
    contents: ClassVar[dict[str, bytes]] = {}  # what this worker read, by absolute path
    prefilter: CheckFilter | None = None  # made on the first scan (crate aliases, once each)


def _init_worker(
    settings: Settings | None,
    catalog: Catalog | None,
    cache: AnalysisCache | None,
    added: tuple[RuleInfo, ...] = (),
    derived: tuple[RuleInfo, ...] = (),
) -> None:
    _use_added_rules(added)
    if derived_rules() != derived:  # rules derived from records (a spawned worker has none)
        set_derived_rules(derived)
    _WorkerState.settings = settings
    _WorkerState.catalog = catalog
    _WorkerState.cache = cache
    from panic_lens.rust.memo import CrateMemo

    _WorkerState.contents = {}
    _WorkerState.memo = CrateMemo(_read_stored)
    _keep_analysed(KEPT_ANALYSED)
    _WorkerState.prefilter = None
    # Python's default collection thresholds (the CLI raises them for its own short run): with
    # higher ones the analyses' cycles pile up and peak memory grows for no clear gain
    gc.set_threshold(700, 10, 10)


def _use_added_rules(added: tuple[RuleInfo, ...]) -> None:
    """The parent's user rules (`--rules` folders) in this worker: a forked worker has them
    already; a spawned one starts with the shipped rules only."""
    if added_rules() != added:
        set_added_rules(added)


def _analyse_in_worker(items: list[Item]) -> list[Done]:
    state = _WorkerState
    args = (state.settings, state.catalog, state.cache, state.memo)
    return [_analyse_one(path, data, key, *args, rules) for path, data, key, rules in items]


def scan_in_worker(files: list[str]) -> list[Scanned]:
    """Read, prefilter and analyse `files`: what `run_check` does for each in the parent."""
    state = _WorkerState
    if state.prefilter is None:
        state.prefilter = CheckFilter(state.contents, Manifests(), _read_stored)
    out: list[Scanned] = []
    for path in files:
        try:
            data = _read_stored(path)
        except OSError as exc:
            out.append((path, exc.strerror or str(exc), None))
            continue
        if not state.prefilter.keeps(path, data):
            out.append((path, None, None))
            continue
        may_fire = state.prefilter.rules_for(path, data)
        args = (state.settings, state.catalog, None, state.memo, may_fire)
        done = _analyse_one(path, data, None, *args)
        out.append((path, None, done[1]))
    return out


def _read_stored(path: str) -> bytes:
    """A file's bytes, read once per worker: its prefilter, rename index and analyses all read
    the crate's sources (a `check` run trusts a file not to change while it runs)."""
    key = os.path.abspath(path)
    data = _WorkerState.contents.get(key)
    if data is None:
        with open(path, "rb") as file:
            data = _WorkerState.contents[key] = file.read()
    return data

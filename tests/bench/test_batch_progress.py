"""batch.check_paths reports its progress: the total first, then every file once (skipped by
the prefilter, answered from the cache, analysed here or by a worker, or unreadable)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bench import corpus
from panic_lens import batch
from panic_lens.cache import AnalysisCache


class Recorder:
    def __init__(self) -> None:
        self.totals: list[int] = []
        self.done = 0
        self._lock = threading.Lock()

    def start(self, total: int) -> None:
        self.totals.append(total)

    def advance(self, files: int) -> None:
        with self._lock:
            self.done += files


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    corpus.generate(root, 40, seed=5, hit_ratio=0.5)
    (root / "unreadable.rs").symlink_to(root / "missing.rs")  # listed, cannot be read
    return root


def count(tree: Path, **kwargs: object) -> tuple[Recorder, int]:
    recorder = Recorder()
    result, stats = batch.run_check([tree], progress=recorder, **kwargs)  # type: ignore[arg-type]
    return recorder, stats.files + len(result.errors)


@pytest.mark.parametrize("mode", ["serial", "pool", "scan in workers"])
def test_every_file_is_counted_once_without_a_cache(
    tree: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if mode == "pool":
        monkeypatch.setattr(batch, "PARALLEL_MIN_BYTES", 0)
    if mode == "scan in workers":
        monkeypatch.setattr(batch, "SCAN_MIN_BYTES", 0)
    recorder, files = count(tree, jobs=1 if mode == "serial" else 2)
    assert recorder.totals == [files] and recorder.done == files


def test_every_file_is_counted_once_cold_and_warm(tree: Path, tmp_path: Path) -> None:
    cache = AnalysisCache(tmp_path / "cache")
    for _ in ("cold", "warm"):
        recorder, files = count(tree, cache=cache, jobs=2)
        assert recorder.totals == [files] and recorder.done == files

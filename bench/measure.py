"""Run one command and measure it: wall time, CPU time (with its worker processes), peak memory.

CPU time comes from wait4 (the child plus the descendants it reaped). Peak memory is sampled:
the summed resident sets of the whole process tree (wait4's ru_maxrss would count the forked
copy of this harness, and not the sum over parallel workers).
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import psutil

SAMPLE_SECONDS = 0.01
# Listing a process tree reads every process in /proc (about 1 ms here): done each sample, it
# took a tenth of a core from the command measured on a 2-core machine. The tree is listed
# this often; the resident sets of the processes known are read at every sample.
LIST_SECONDS = 0.1


@dataclass(frozen=True, slots=True)
class Sample:
    """One run: seconds of wall and CPU time, peak MB, exit code and what it printed."""

    wall: float
    cpu: float
    peak_mb: float
    code: int
    stdout: str


@dataclass(frozen=True, slots=True)
class Summary:
    """Medians over repeated runs (the machine may be shared, so one run says little)."""

    wall: float
    cpu: float
    peak_mb: float
    runs: int
    last: Sample


def run(cmd: Sequence[str], env: Mapping[str, str] | None = None) -> Sample:
    full_env = {**os.environ, **(env or {})}
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.DEVNULL, env=full_env)
        peak = _TreeSampler(proc.pid)
        peak.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        peak.stop()
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    cpu = usage.ru_utime + usage.ru_stime
    peak_mb = peak.peak_bytes / 2**20
    return Sample(wall, cpu, peak_mb, proc.returncode, text)


def repeat(
    cmd: Sequence[str],
    times: int,
    env: Mapping[str, str] | None = None,
    before: Callable[[], None] | None = None,
) -> Summary:
    """`times` runs of `cmd`; `before` (untimed) prepares each one."""
    samples = []
    for _ in range(max(1, times)):
        if before is not None:
            before()
        samples.append(run(cmd, env))
    return summarize(samples)


def summarize(samples: list[Sample]) -> Summary:
    return Summary(
        wall=statistics.median(s.wall for s in samples),
        cpu=statistics.median(s.cpu for s in samples),
        peak_mb=statistics.median(s.peak_mb for s in samples),
        runs=len(samples),
        last=samples[-1],
    )


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


class LoadSampler:
    """The 1-minute load average every `seconds` while running (as a context manager): a
    shared machine's load moves within one benchmark run, and before / after alone can miss
    the peak the figures were measured under."""

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def _loop(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.seconds):
                return


class _TreeSampler:
    """Polls the summed RSS of a process and its descendants until stopped."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.Error:
            return
        procs: list[psutil.Process] = []
        listed = -LIST_SECONDS
        while not self._stop.is_set():
            now = time.perf_counter()
            if now - listed >= LIST_SECONDS:
                procs, listed = _tree(root), now
            self.peak_bytes = max(self.peak_bytes, _rss(procs))
            self._stop.wait(SAMPLE_SECONDS)


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _rss(procs: list[psutil.Process]) -> int:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total

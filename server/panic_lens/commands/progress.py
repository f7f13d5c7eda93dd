"""`check`'s progress bar: one line on stderr, redrawn in place (`\\r`), only when stderr is a
terminal and only once a run has lasted `PANIC_LENS_PROGRESS_DELAY` seconds (0.5 by default);
the line is blanked before the report prints, so it never mixes with it (text, JSON or SARIF).
"""

from __future__ import annotations

import os
import shutil
import threading
from types import TracebackType
from typing import TextIO

DEFAULT_DELAY = 0.5  # seconds: shorter runs show nothing
TICK = 0.1  # seconds between redraws
_BAR_CELLS = 24


def delay() -> float:
    """`PANIC_LENS_PROGRESS_DELAY` (seconds), else the default; a bad value is the default."""
    try:
        return max(0.0, float(os.environ["PANIC_LENS_PROGRESS_DELAY"]))
    except (KeyError, ValueError):
        return DEFAULT_DELAY


def wanted(stream: TextIO) -> bool:
    """A terminal that redraws a line: not a pipe or file, not TERM=dumb."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and os.environ.get("TERM") != "dumb"


class Bar:
    """Counts files done out of the total (`batch.Progress`) and, from a thread of its own,
    draws `panic-lens: [####----] 812/1705 files` on `stream` until the `with` block ends."""

    def __init__(self, stream: TextIO, wait: float | None = None) -> None:
        self._stream = stream
        self._wait = delay() if wait is None else wait
        self._total = 0
        self._done = 0
        self._started = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0  # width of the line on screen (0: none)
        self._screen = threading.Lock()  # one writer at a time: the ticker, start or the end
        self._cleared = False  # for good: nothing is drawn after the end

    def start(self, total: int) -> None:
        with self._lock:
            self._total = total
            self._started = True
        if self._wait <= 0:  # no delay: drawn now, before the first tick (the tests rely on it)
            self._draw()

    def advance(self, files: int) -> None:
        with self._lock:
            self._done += files

    def __enter__(self) -> Bar:
        self._thread = threading.Thread(target=self._run, name="panic-lens-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._clear()

    def _run(self) -> None:
        if self._stop.wait(self._wait):
            return
        while True:
            self._draw()
            if self._stop.wait(TICK):
                return

    def _draw(self) -> None:
        with self._lock:
            done, total, started = self._done, self._total, self._started
        if not started:  # the files are still being listed
            return
        columns = shutil.get_terminal_size().columns
        line = render(done, total)[: max(0, columns - 1)]  # never wraps: `\r` must reach it
        with self._screen:
            if not self._cleared:
                self._write("\r" + line.ljust(self._drawn))
                self._drawn = len(line)

    def _clear(self) -> None:
        with self._screen:
            self._cleared = True
            if self._drawn:
                self._write("\r" + " " * self._drawn + "\r")
                self._drawn = 0

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed terminal: the run goes on without the bar
            self._stop.set()


def render(done: int, total: int) -> str:
    """The bar's text: `panic-lens: [######------] 812/1705 files`."""
    done = min(done, total)
    filled = _BAR_CELLS * done // total if total else 0
    bar = "#" * filled + "-" * (_BAR_CELLS - filled)
    return f"panic-lens: [{bar}] {done}/{total} files"

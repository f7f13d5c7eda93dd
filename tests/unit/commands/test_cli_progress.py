"""`check`'s progress bar: on stderr when it is a terminal (a pseudo-terminal here), never when
it is a pipe, never in the report on stdout, and blanked before the report prints."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from panic_lens.commands.progress import Bar, render

APP = Path(__file__).resolve().parents[3] / "examples" / "burn-app"
CLEAR = re.compile(rb"\r {10,}\r")


def run_check(fmt: str, stderr_tty: bool) -> tuple[int, bytes, bytes]:
    """`panic-lens check --format fmt` on the example crate with the bar's delay at 0; stderr
    a pseudo-terminal or a pipe. Returns the exit code, stdout and what stderr received."""
    env = {**os.environ, "PANIC_LENS_PROGRESS_DELAY": "0", "PANIC_LENS_NO_CACHE": "1"}
    env.pop("TERM", None)
    command = [sys.executable, "-m", "panic_lens", "check", "--format", fmt, str(APP)]
    if not stderr_tty:
        done = subprocess.run(command, env=env, capture_output=True)
        return done.returncode, done.stdout, done.stderr
    master, slave = os.openpty()
    try:
        child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        out, _ = child.communicate()
        return child.returncode, out, _drain(master)
    finally:
        os.close(master)


def _drain(master: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child's end is closed
            return data
        if not chunk:
            return data
        data += chunk


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_on_a_terminal_the_bar_is_drawn_on_stderr_and_blanked(fmt: str) -> None:
    code, out, err = run_check(fmt, stderr_tty=True)
    assert code == 1
    assert b"panic-lens: [" in err and b"/6 files" in err  # the example's six .rs files
    last_bar = err.rindex(b"panic-lens: [")
    assert CLEAR.search(err, last_bar), "the line is blanked at the end"
    assert b"panic-lens: [" not in out and b"\r" not in out
    if fmt != "text":
        json.loads(out)  # the report is intact


def test_when_stderr_is_a_pipe_there_is_no_bar() -> None:
    code, out, err = run_check("json", stderr_tty=False)
    assert code == 1 and json.loads(out)["findings"]
    assert b"panic-lens: [" not in err and b"\r" not in err


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_short_run_draws_nothing() -> None:
    screen = FakeTerminal()
    with Bar(screen, wait=3600) as bar:
        bar.start(10)
        bar.advance(10)
    assert screen.getvalue() == ""


def test_the_bar_counts_files() -> None:
    assert render(3, 6) == "panic-lens: [############------------] 3/6 files"
    assert render(0, 0) == "panic-lens: [------------------------] 0/0 files"

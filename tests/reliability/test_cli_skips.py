"""`panic-lens check` never leaves a file unchecked in silence: a file over the size limit is
named on stderr, and the other files are still checked.

Runs without the analysis cache: a warm run answers from cached findings only and does not
repeat the note yet (see the reliability report)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rel_support import TESTS


def test_a_file_over_the_size_limit_is_named(tmp_path: Path) -> None:
    crate = Path(shutil.copytree(TESTS / "lsp" / "data" / "crate", tmp_path / "crate"))
    speech = (crate / "src" / "speech.rs").read_text(encoding="utf-8")
    filler = ("// generated " + "x" * 80 + "\n") * (12 * 2**20 // 94)
    (crate / "src" / "generated.rs").write_text(speech + filler, encoding="utf-8")
    command = [sys.executable, "-m", "panic_lens", "check", str(crate)]
    env = {**os.environ, "PANIC_LENS_NO_CACHE": "1"}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, env=env
    )
    assert done.returncode == 1, done.stderr
    assert "generated.rs: skipped, 12 MB over the 10 MB limit" in done.stderr
    assert "speech.rs:17:5: error[ctc-target-capacity]" in done.stdout

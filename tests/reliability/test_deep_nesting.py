"""All our tree walks are iterative: a 10,000-deep nest is analysed, not crashed or hung on.

tree-sitter parses the nest itself; the walks, name resolution and rules that follow are ours.
Each case runs in its own process (deep_cases.py) with a time budget, and the risky ctc_loss
call inside or after the nest must still be reported: the file was analysed, not given up on.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from deep_cases import CASES

WORKER = Path(__file__).with_name("deep_cases.py")
BUDGET_SECONDS = 10.0  # a 10k-deep nest analyses in well under a second when walks are linear
HARD_TIMEOUT = 30.0


@pytest.mark.parametrize("name", sorted(CASES))
def test_deep_nest_is_analysed(name: str) -> None:
    try:
        done = subprocess.run(
            [sys.executable, str(WORKER), name],
            capture_output=True,
            text=True,
            timeout=HARD_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: analysis still running after {HARD_TIMEOUT:.0f}s")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert [n for n in summary["notes"] if "failed" in n] == []
    assert ["ctc-target-capacity", summary["call_row"]] in summary["findings"]
    assert summary["seconds"] < BUDGET_SECONDS

"""The benchmark harness on tiny sizes: measurement, the regex baseline, the whole quick run."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from bench import measure, regex_scan, run, shapes


def test_measure_reports_time_output_and_exit_code() -> None:
    code = "import sys; sum(range(3_000_000)); print('done'); sys.exit(3)"
    sample = measure.run([sys.executable, "-c", code])
    assert sample.code == 3
    assert sample.stdout.strip() == "done"
    assert sample.wall > 0 and sample.cpu > 0
    assert sample.peak_mb > 1


def test_measure_counts_the_cpu_of_worker_processes() -> None:
    code = (
        "import os, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    t = time.process_time()\n"
        "    while time.process_time() - t < 0.3: pass\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
    )
    assert measure.run([sys.executable, "-c", code]).cpu >= 0.3


def test_peak_memory_counts_a_worker_started_after_the_tree_was_listed() -> None:
    """The tree is listed every LIST_SECONDS, not at every sample: a process forked later
    (as `check` forks its workers) is still counted."""
    code = (
        "import os, time\n"
        "time.sleep(0.25)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    block = bytearray(300 * 2**20)\n"
        "    time.sleep(0.5)\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
    )
    assert measure.run([sys.executable, "-c", code]).peak_mb >= 300


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert measure.percentile(values, 50) == 50
    assert measure.percentile(values, 95) == 95
    assert measure.percentile([7.0], 95) == 7


def test_regex_baseline_sees_each_risky_shape(tmp_path: Path) -> None:
    rng = random.Random(1)
    for shape in shapes.RULE_SHAPES:
        (tmp_path / f"{shape.__name__}.rs").write_text(shape(rng, True))
    found = {
        rule for path in regex_scan.rust_files([str(tmp_path)]) for _, rule in regex_scan.scan(path)
    }
    assert found == set(regex_scan.PATTERNS)


def test_quick_run_writes_every_table(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    assert run.main(["--quick", "--files", "12", "--out", str(out)]) == 0
    text = out.read_text()
    for tool in ("cold, no cache", "warm cache", "regex scan (naive)"):
        assert f"| generated | {tool}" in text or f"| generated | panic-lens check, {tool}" in text
    for tool in (run.SEED_SG, run.shipped_sg()):  # both ast-grep projects, each a base
        assert f"| generated | {tool} |" in text
    assert "wall / ast-grep A | CPU / ast-grep A | wall / ast-grep B | CPU / ast-grep B" in text
    targets = text.split("## Targets")[1]
    for base in ("A", "B"):
        for check in ("cold, no cache", "warm cache"):
            assert f"| check {check}, generated | <= " in targets
            assert f"x ast-grep {base} wall |" in targets
    assert "didChange -> publish" in text and "files open" in text
    assert "| 200 | " in text and "| yes |" in text.split("## explain")[1].split("##")[0]
    assert "## Targets" in text


def test_ast_grep_and_the_cold_check_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cold check runs between the two ast-grep projects, the seed rules' and the shipped
    rules', and which goes first alternates (so each ast-grep run is before the cold check on
    one turn and after it on the next), three runs each; the cache rows come after, filling
    before warm."""
    order: list[str] = []

    def fake_run(cmd: list[str], env: dict[str, str] | None = None) -> measure.Sample:
        env = env or {}
        if "ast-grep" in cmd[0]:
            order.append("shipped" if "astgrep-shipped" in cmd[3] else "seed")
        elif env.get("PANIC_LENS_NO_CACHE") == "1":
            order.append("cold")
        else:
            order.append("cached" if "PANIC_LENS_CACHE_DIR" in env else "other")
        return measure.Sample(0.1, 0.1, 1.0, 0, "{}")

    monkeypatch.setattr(measure, "run", fake_run)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "lib.rs").write_text("fn main() {}\n")
    rows = run.check_rows(tmp_path / "tree", "t", tmp_path, 3, False)
    assert order[0] == "cold"  # the untimed run that writes bytecode
    turn = ["seed", "cold", "shipped"]
    assert order[1:10] == [*turn, *turn[::-1], *turn]
    assert order[10:] == ["cached"] * 7 + ["other"] * 3  # filling 1, warm 3, touched 3, regex 3
    assert [r.tool for r in rows[:3]] == [
        run.SEED_SG,
        run.shipped_sg(),
        "panic-lens check, cold, no cache",
    ]
    assert [r.summary.runs for r in rows[:3]] == [3, 3, 3]

"""The benchmark harness on tiny sizes: measurement, the regex baseline, the whole quick run."""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import pytest

from bench import astgrep_config, measure, regex_scan, run, shapes


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


def test_the_load_is_sampled_while_running() -> None:
    with measure.LoadSampler(0.05) as load:
        time.sleep(0.3)
    assert len(load.samples) >= 4  # one at the start, every 0.05 s, one at the end
    assert all(sample >= 0 for sample in load.samples)


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
    every = run.every_rule_sg(astgrep_config.checked_rules())
    for tool in (run.baseline_sg(), every, run.SEED_SG):  # the ast-grep projects, each a base
        assert f"| generated | {tool} |" in text
    assert run.per_rule_sg() not in text  # only with --per-rule-astgrep
    bases = ("baseline", "A", "B")
    header = " | ".join(f"{k} / ast-grep {b}" for b in bases for k in ("wall", "CPU"))
    assert header in text.split("## check")[1]
    targets = text.split("## Targets")[1]
    for check, limit in (("cold, no cache", 0.6), ("warm cache", 0.1)):
        for kind in ("wall", "CPU"):  # against the baseline only
            assert f"| check {check}, generated | <= {limit}x ast-grep baseline {kind} |" in targets
    assert "ast-grep A" not in targets and f"ast-grep baseline: {run.baseline_sg()}." in targets
    assert "| didChange -> publish p95, typing, 5,000 lines | <= 6 ms |" in targets
    assert "files open | <= 100 MB |" in targets
    assert "| 200 | " in text and "| yes |" in text.split("## explain")[1].split("##")[0]
    assert "## Targets" in text
    assert "- load average (1 min) before / after: " in text and "; while running: median " in text


def _fake_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record which command each measured run was, instead of running it."""
    order: list[str] = []

    def fake_run(cmd: list[str], env: dict[str, str] | None = None) -> measure.Sample:
        env = env or {}
        if "ast-grep" in cmd[0]:
            config = cmd[3]
            order.append(
                "one" if "astgrep-one-rule" in config
                else "every" if "astgrep-every-rule" in config
                else "per" if "astgrep-per-rule" in config
                else "seed"
            )  # fmt: skip
        elif env.get("PANIC_LENS_NO_CACHE") == "1":
            order.append("cold")
        else:
            order.append("cached" if "PANIC_LENS_CACHE_DIR" in env else "other")
        return measure.Sample(0.1, 0.1, 1.0, 0, "{}")

    monkeypatch.setattr(measure, "run", fake_run)
    return order


def test_ast_grep_and_the_cold_check_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cold check runs between the like-for-like ast-grep project (the call shapes of the
    derived rules too) and the baseline (one rule for every shipped rule file), both always
    next to it, the seed rules' project before them, and the order reverses every turn (so
    each runs after the cold check on one turn and before it on the next), three runs each;
    the cache rows come after, filling before warm."""
    order = _fake_runs(monkeypatch)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "lib.rs").write_text("fn main() {}\n")
    rows = run.check_rows(tmp_path / "tree", "t", tmp_path, 3, False)
    assert order[0] == "cold"  # the untimed run that writes bytecode
    turn = ["seed", "every", "cold", "one"]
    assert order[1:13] == [*turn, *turn[::-1], *turn]
    assert order[13:] == ["cached"] * 7 + ["other"] * 3  # filling 1, warm 3, touched 3, regex 3
    every = run.every_rule_sg(astgrep_config.checked_rules())
    assert [r.tool for r in rows[:4]] == [run.baseline_sg(), every, run.SEED_SG, run.COLD]
    assert [r.summary.runs for r in rows[:4]] == [3, 3, 3, 3]


def test_the_commands_keep_the_callers_python_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PYTHONPATH=server python -m bench.run` times that code: the repository root comes first
    (for `bench.regex_scan`), the caller's path after it, in every command's environment."""
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "server"))
    envs: list[dict[str, str]] = []

    def fake_run(cmd: list[str], env: dict[str, str] | None = None) -> measure.Sample:
        envs.append(dict(env or {}))
        return measure.Sample(0.1, 0.1, 1.0, 0, "{}")

    monkeypatch.setattr(measure, "run", fake_run)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "lib.rs").write_text("fn main() {}\n")
    run.check_rows(tmp_path / "tree", "t", tmp_path, 1, False)
    expected = os.pathsep.join([str(run.BENCH.parent), str(tmp_path / "server")])
    assert envs and all(env["PYTHONPATH"] == expected for env in envs)
    monkeypatch.delenv("PYTHONPATH")
    assert run.python_path() == str(run.BENCH.parent)


def test_the_per_rule_project_is_timed_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `per_rule`, the per-rule project takes its turns too, away from the cold check
    (the baseline keeps its place next to it), and its row follows the seed's."""
    order = _fake_runs(monkeypatch)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "lib.rs").write_text("fn main() {}\n")
    rows = run.check_rows(tmp_path / "tree", "t", tmp_path, 2, False, per_rule=True)
    turn = ["per", "seed", "every", "cold", "one"]
    assert order[1:11] == [*turn, *turn[::-1]]
    every = run.every_rule_sg(astgrep_config.checked_rules())
    assert [r.tool for r in rows[:5]] == [run.baseline_sg(), every, run.SEED_SG,
                                          run.per_rule_sg(), run.COLD]  # fmt: skip

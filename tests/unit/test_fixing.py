"""`check --fix`, `--unsafe-fixes`, `--diff` on real files (fixing.py, commands/fix.py): two
fixes in one file, safe and unsafe fixes, a file changed between the check and the write,
overlapping and parse-breaking fixes, the diff, the exit codes, and the example crate."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from records_factory import REPO

from panic_lens import fixing
from panic_lens.cli import main
from panic_lens.commands import fix as fix_command
from panic_lens.engine import analyze
from panic_lens.model import Edit, Finding, Fix, Severity
from panic_lens.rust.edits import span_between

APP = REPO / "examples" / "burn-app"

TWO_FIXES = """\
use burn::nn::DropoutConfig;
use burn::nn::conv::Conv2dConfig;
fn build(device: &burn::prelude::Device) {
    let drop = DropoutConfig::new(50.0).init();
    let conv = Conv2dConfig::new([6, 9], [3, 3]).with_groups(4).init(device);
}
"""
FIXED = TWO_FIXES.replace("new(50.0)", "new(0.5)").replace("with_groups(4)", "with_groups(3)")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def two_fixes(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "lib.rs"
    path.parent.mkdir()
    path.write_text(TWO_FIXES)
    return path


def test_unsafe_fixes_apply_both_fixes_of_one_file_and_recheck(
    two_fixes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "check", str(two_fixes), "--fix", "--unsafe-fixes")
    assert two_fixes.read_text() == FIXED
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"fixed: {two_fixes}:4:41: [dropout-probability-range] Read the percentage as a "
        "fraction (changes behaviour)",
        f"fixed: {two_fixes}:5:65: [conv-groups-divide-channels] Use the largest group count "
        "that divides both channel counts (their gcd) (changes behaviour)",
        "panic-lens: fixed 2 findings in 1 file",
        "panic-lens: no findings in 1 file",
    ]
    assert not [p for p in two_fixes.parent.iterdir() if p.name != "lib.rs"]  # no temp file


def test_fix_alone_applies_no_fix_that_changes_behaviour(
    two_fixes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "check", str(two_fixes), "--fix")
    assert two_fixes.read_text() == TWO_FIXES
    assert code == 1
    assert "panic-lens: fixed 0 findings in 0 files" in out
    assert out.rstrip().endswith("2 with --fix --unsafe-fixes (--diff shows the edits)")


def test_diff_prints_the_edits_and_writes_nothing(
    two_fixes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "check", str(two_fixes), "--diff", "--unsafe-fixes")
    assert code == 1 and two_fixes.read_text() == TWO_FIXES
    name = str(two_fixes).lstrip("/")
    assert out == (
        f"--- a/{name}\n+++ b/{name}\n@@ -1,6 +1,6 @@\n"
        " use burn::nn::DropoutConfig;\n use burn::nn::conv::Conv2dConfig;\n"
        " fn build(device: &burn::prelude::Device) {\n"
        "-    let drop = DropoutConfig::new(50.0).init();\n"
        "-    let conv = Conv2dConfig::new([6, 9], [3, 3]).with_groups(4).init(device);\n"
        "+    let drop = DropoutConfig::new(0.5).init();\n"
        "+    let conv = Conv2dConfig::new([6, 9], [3, 3]).with_groups(3).init(device);\n"
        " }\n"
    )
    assert err.splitlines()[-1] == "panic-lens: would fix 2 findings in 1 file"
    code, out, _ = run(capsys, "check", str(two_fixes), "--diff")  # only safe ones: none
    assert (code, out) == (0, "")


def test_a_file_changed_between_the_check_and_the_write_is_not_written(
    two_fixes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    edited = TWO_FIXES.replace("fn build", "pub fn build")
    planned = fix_command.plan_file

    def plan_then_edit(path: str, **kwargs: object) -> fixing.FilePlan:
        plan = planned(path, **kwargs)  # type: ignore[arg-type]
        Path(path).write_text(edited)  # an editor saves the file meanwhile
        return plan

    monkeypatch.setattr(fix_command, "plan_file", plan_then_edit)
    code, out, err = run(capsys, "check", str(two_fixes), "--fix", "--unsafe-fixes")
    assert two_fixes.read_text() == edited
    assert code == 2
    assert f"{two_fixes}: changed on disk since it was checked; not written" in err
    assert "fixed 0 findings in 0 files" in out


def test_write_plan_is_atomic_keeps_the_mode_and_follows_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.rs"
    real.write_text(TWO_FIXES)
    real.chmod(0o640)
    link = tmp_path / "link.rs"
    link.symlink_to(real)
    plan = fixing.plan_file(str(link), unsafe=True)
    assert [a.rule for a in plan.applied] == [
        "dropout-probability-range",
        "conv-groups-divide-channels",
    ]
    assert fixing.write_plan(plan) is None
    assert link.is_symlink() and real.read_text() == FIXED
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert fixing.write_plan(plan) == fixing.CHANGED_ON_DISK  # it holds the fixed text now


def fix_of(src: bytes, start: int, end: int, text: str, name: str) -> tuple[Finding, Fix]:
    span = span_between(src, start, end)
    fix = Fix(name, name, (Edit(span, text),))
    return Finding("r", span, Severity.ERROR, name), fix


def test_overlapping_fixes_apply_the_first_and_parse_breaking_ones_none() -> None:
    src = b"fn f() { g(1, 2); }\n"
    one = src.index(b"1")
    first = fix_of(src, one, one + 1, "3", "a")
    overlapping = fix_of(src, one, one + 4, "4, 5", "b")
    later = fix_of(src, one + 3, one + 4, "6", "c")
    fixed, took = fixing.apply_fixes(src, [first, overlapping, later])
    assert [fix.id for _, fix in took] == ["a", "c"]  # b overlaps both: left for a later round
    assert fixed == b"fn f() { g(3, 6); }\n"
    broken = fix_of(src, one, one + 1, "(", "broken")
    assert fixing.apply_fixes(src, [broken]) == (src, [])


def test_unsafe_fixes_and_fix_with_diff_are_usage_errors(
    two_fixes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "check", str(two_fixes), "--unsafe-fixes")[0] == 2
    code, _, err = run(capsys, "check", str(two_fixes), "--fix", "--diff")
    assert code == 2 and "give one of them" in err
    assert two_fixes.read_text() == TWO_FIXES


def test_fix_on_the_example_crate_leaves_only_findings_without_a_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --fix --unsafe-fixes` on a copy of examples/burn-app: every fixable finding is
    fixed, the crate still parses, and what is left has no automatic fix (the ctc targets'
    width is the data's; a U32 token tensor moved between router devices needs another
    dtype where it is made, which the rule cannot choose)."""
    crate = tmp_path / "burn-app"
    shutil.copytree(APP, crate)
    code, out, _ = run(capsys, "check", str(crate), "--fix", "--unsafe-fixes", "--fail-on", "error")
    assert "panic-lens: fixed 3 findings in 2 files" in out
    left = [f for p in sorted(crate.rglob("*.rs")) for f in analyze(p.read_bytes(), p).findings]
    assert {f.rule for f in left} == {"router-unsupported-dtype", "ctc-target-capacity"}
    assert all(not f.fixes for f in left)
    assert code == 1  # those are errors
    for path in crate.rglob("*.rs"):
        original = APP / path.relative_to(crate)
        assert fixing.syntax_errors(path.read_bytes()) <= fixing.syntax_errors(
            original.read_bytes()
        ), path
    assert os.listdir(crate / "src") == os.listdir(APP / "src")


def test_diff_of_the_example_crate_holds_only_its_safe_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without --unsafe-fixes only the AsyncPolicy fix (load the record on the inner policy
    before wrapping it) is safe; the interpolation modes would change the results."""
    code, out, err = run(capsys, "check", str(APP), "--diff")
    assert code == 1
    assert [line for line in out.splitlines() if line.startswith(("+", "-"))] == [
        f"--- a/{str(APP / 'src' / 'rl.rs').lstrip('/')}",
        f"+++ b/{str(APP / 'src' / 'rl.rs').lstrip('/')}",
        "+    let policy = policy.load_record(record);",
        "-    actors.load_record(record)",
        "+    actors",
    ]
    assert err.splitlines()[-1] == "panic-lens: would fix 1 finding in 1 file"


def test_fixes_left_out_for_overlapping_get_a_later_round_and_a_cycle_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds: analyse, apply what does not overlap, analyse the result again. Here each
    round's findings are made from the text: `g(` -> `h(` and `(1, 1)` -> `(0)` share the
    `(`; and a rule that flips `x` and `y` forever."""
    from panic_lens.model import Analysis

    def rule(text: bytes, path: object, **_: object) -> Analysis:
        found = []
        for needle, new in ((b"g(", "h("), (b"(1, 1)", "(0)"), (b"x", "y"), (b"y", "x")):
            at = text.find(needle)
            if at >= 0:
                found.append(fix_of(text, at, at + len(needle), new, needle.decode()))
        return Analysis(findings=tuple(replace_fixes(f, fix) for f, fix in found))

    monkeypatch.setattr(fixing, "analyze", rule)
    path = tmp_path / "a.rs"
    path.write_bytes(b"fn f() { g(1, 1); }\n")
    plan = fixing.plan_file(str(path))
    assert plan.fixed == b"fn f() { h(0); }\n"  # `(1, 1)` waited for the second round
    assert [a.fix.id for a in plan.applied] == ["g(", "(1, 1)"]
    path.write_bytes(b"fn f() { k(x); }\n")
    plan = fixing.plan_file(str(path))
    assert plan.fixed == b"fn f() { k(y); }\n"  # flipping back repeats the text: stop
    assert [a.fix.id for a in plan.applied] == ["x"]


def replace_fixes(finding: Finding, fix: Fix) -> Finding:
    from dataclasses import replace

    return replace(finding, fixes=(fix,))

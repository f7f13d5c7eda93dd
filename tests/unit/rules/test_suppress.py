"""`// panic-lens: allow(..)`: which line an allow covers, unused and misspelled allows, and
`check --strict` on them (issue 37, point 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens import engine
from panic_lens.cli import main
from panic_lens.diagnostics import UNNECESSARY, LineIndex, diagnostic_json
from panic_lens.model import Finding
from panic_lens.rules.meta import SUPPRESSION_RULE
from panic_lens.rules.suppress import is_unused_allow

DROPOUT = "dropout-probability-range"
HEAD = "use burn::nn::DropoutConfig;\nfn f() {\n"


def findings(body: str) -> list[Finding]:
    return list(engine.analyze(HEAD + body + "}\n", "lib.rs").findings)


def rows(found: list[Finding]) -> list[tuple[int, str]]:
    """(1-based line of the body, rule) per finding."""
    return [(f.span.start.row - 1, f.rule) for f in found]


def test_an_allow_at_the_end_of_a_line_does_not_cover_the_next_line() -> None:
    found = findings(
        f"    let a = DropoutConfig::new(0.5).init(); // panic-lens: allow({DROPOUT}) ok\n"
        "    let b = DropoutConfig::new(50.0).init();\n"
    )
    assert rows(found) == [(1, SUPPRESSION_RULE), (2, DROPOUT)]
    assert found[0].message == f"unused suppression: no `{DROPOUT}` finding on this line"
    assert is_unused_allow(found[0])


def test_an_allow_at_the_end_of_a_line_covers_that_line() -> None:
    found = findings(
        f"    let a = DropoutConfig::new(5.0).init(); // panic-lens: allow({DROPOUT}) read\n"
        "    let b = DropoutConfig::new(0.5).init();\n"
    )
    assert found == []


def test_an_allow_on_a_line_of_its_own_covers_the_next_line_only() -> None:
    found = findings(
        f"    // panic-lens: allow({DROPOUT}) a sweep script clamps it\n"
        "    let a = DropoutConfig::new(5.0).init();\n"
        "    let b = DropoutConfig::new(7.0).init();\n"
    )
    assert rows(found) == [(3, DROPOUT)]


def test_allows_stacked_on_lines_of_their_own_reach_the_code_below() -> None:
    found = findings(
        f"    // panic-lens: allow({DROPOUT}) clamped by the caller\n"
        "    // panic-lens: allow(conv-groups-divide-channels) not here\n"
        "    let a = DropoutConfig::new(5.0).init();\n"
    )
    assert rows(found) == [(2, SUPPRESSION_RULE)]
    assert "no `conv-groups-divide-channels` finding on the next line" in found[0].message


def test_a_block_comment_before_code_on_its_line_covers_that_line() -> None:
    found = findings(
        f"    /* panic-lens: allow({DROPOUT}) clamped */ let a = DropoutConfig::new(5.0).init();\n"
        "    let b = DropoutConfig::new(7.0).init();\n"
    )
    assert rows(found) == [(2, DROPOUT)]


def test_a_misspelled_rule_id_says_did_you_mean_and_silences_nothing() -> None:
    found = findings(
        "    // panic-lens: allow(dropout-probabilty) typo\n"
        "    let a = DropoutConfig::new(5.0).init();\n"
    )
    assert rows(found) == [(1, SUPPRESSION_RULE), (2, DROPOUT)]
    assert found[0].message == (
        f"panic-lens: allow(..): unknown rule id `dropout-probabilty`; did you mean `{DROPOUT}`?"
    )
    assert "conv-groups" not in found[0].message  # not every id


def test_an_unused_allow_is_an_unnecessary_hint_in_the_editor() -> None:
    text = HEAD + f"    let a = 1; // panic-lens: allow({DROPOUT}) ok\n}}\n"
    (hint,) = engine.analyze(text, "lib.rs").findings
    index = LineIndex.of(text, "utf-16")
    diagnostic = diagnostic_json(hint, index, "file:///lib.rs", lambda _: None, str)
    assert diagnostic["severity"] == 4 and diagnostic["tags"] == [UNNECESSARY]
    assert "tags" not in diagnostic_json(
        findings("    let a = DropoutConfig::new(5.0).init();\n")[0],
        index,
        "file:///lib.rs",
        lambda _: None,
        str,
    )


def test_check_reports_the_stale_allow_and_strict_makes_it_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "lib.rs"
    source.write_text(
        HEAD + f"    let a = DropoutConfig::new(0.5).init(); // panic-lens: allow({DROPOUT}) ok\n"
        "    let b = DropoutConfig::new(0.4).init();\n}\n"
    )
    assert main(["check", str(source)]) == 0
    out = capsys.readouterr().out
    assert f"{source}:3:45: hint[{SUPPRESSION_RULE}] unused suppression" in out
    assert main(["check", str(source), "--strict"]) == 1
    assert f"error[{SUPPRESSION_RULE}] unused suppression" in capsys.readouterr().out


def test_check_fix_removes_unused_allows_or_their_unused_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "lib.rs"
    body = (
        f"    let a = DropoutConfig::new(0.5).init(); // panic-lens: allow({DROPOUT}) ok\n"
        f"    // panic-lens: allow({DROPOUT}, bleu-max-n-zero) swept\n"
        "    let b = DropoutConfig::new(5.0).init();\n"
        "    /* panic-lens: allow(bleu-max-n-zero) none */ let c = 1;\n"
        "    // panic-lens: allow(bleu-max-n-zero) none\n"
        "    let d = 2;\n"
    )
    source.write_text(HEAD + body + "}\n")
    assert main(["check", str(source), "--fix"]) == 0  # safe fixes: the program is the same
    assert source.read_text() == HEAD + (
        "    let a = DropoutConfig::new(0.5).init();\n"
        f"    // panic-lens: allow({DROPOUT}) swept\n"
        "    let b = DropoutConfig::new(5.0).init();\n"
        "    let c = 1;\n"
        "    let d = 2;\n"
        "}\n"
    )
    out = capsys.readouterr().out
    assert "panic-lens: fixed 4 findings in 1 file" in out
    assert out.rstrip().endswith("panic-lens: no findings in 1 file")

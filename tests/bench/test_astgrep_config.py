"""The benchmark's second ast-grep project is generated from the shipped rule files: one ast-grep
rule per shipped rule, the call shapes of its `[[where]]`s, accepted and matched by ast-grep."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bench import astgrep_config, run
from panic_lens.rules.meta import SHIPPED, SHIPPED_DIR


def test_one_ast_grep_rule_per_shipped_rule(tmp_path: Path) -> None:
    config = astgrep_config.write_config(tmp_path / "sg")
    written = {p.stem: p.read_text() for p in (config.parent / "rules").glob("*.yml")}
    assert set(written) == {r.id for r in SHIPPED}
    for rule in SHIPPED:
        if astgrep_config.is_hook(rule):  # copied from the seed project
            assert written[rule.id] == (astgrep_config.HAND_WRITTEN / f"{rule.id}.yml").read_text()
        else:
            assert written[rule.id].startswith(f'id: "{rule.id}"\n')
            for pattern in astgrep_config.call_patterns(rule.spec):  # type: ignore[arg-type]
                assert f"- pattern: {json.dumps(pattern)}\n" in written[rule.id]


def test_the_seed_project_has_the_hook_rules() -> None:
    """The hand-written project's four rules are the four hook rules, by id."""
    hand = {p.stem for p in astgrep_config.HAND_WRITTEN.glob("*.yml")}
    assert hand == {r.id for r in SHIPPED if astgrep_config.is_hook(r)}
    assert len(hand) == 4
    for stem in hand:
        assert f"id: {stem}\n" in (astgrep_config.HAND_WRITTEN / f"{stem}.yml").read_text()


def test_patterns_of_methods_and_free_functions() -> None:
    rule = next(r for r in SHIPPED if r.id == "positional-encoding-d-model-even")
    assert astgrep_config.call_patterns(rule.spec) == [  # type: ignore[arg-type]
        "$R.init($$$A)",
        "PositionalEncodingConfig::init($$$A)",
        "generate_sinusoids($$$A)",
        "$P::generate_sinusoids($$$A)",
    ]
    rotary = next(r for r in SHIPPED if r.id == "rotary-encoding-d-model-even")
    patterns = astgrep_config.call_patterns(rotary.spec)  # type: ignore[arg-type]
    assert len(patterns) == len(set(patterns)) == 4  # init and init_with_frequency_scaling


def test_ast_grep_accepts_the_project_and_each_rule_matches_its_examples(
    tmp_path: Path,
) -> None:
    """Every rule in the rule language finds its call shape in its own `.rs` examples."""
    config = astgrep_config.write_config(tmp_path / "sg")
    done = subprocess.run(
        [run.tool("ast-grep"), "scan", "-c", str(config), "--json=stream", str(SHIPPED_DIR)],
        capture_output=True,
        text=True,
        check=False,
    )
    matches = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert matches, done.stderr
    found = {(m["ruleId"], Path(m["file"]).stem) for m in matches}
    language = [r.id for r in SHIPPED if not astgrep_config.is_hook(r)]
    assert len(language) == len(SHIPPED) - 4
    assert [i for i in language if (i, i) not in found] == []


def test_the_command_line_writes_the_project(tmp_path: Path) -> None:
    assert astgrep_config.main([str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "sgconfig.yml").read_text().endswith("ruleDirs:\n  - rules\n")
    assert len(list((tmp_path / "out" / "rules").glob("*.yml"))) == len(SHIPPED)
    assert astgrep_config.main([]) == 2

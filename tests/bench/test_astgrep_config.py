"""The benchmark's ast-grep projects are generated from the shipped rule files: the baseline, one
ast-grep rule for the call shapes of every shipped rule, and the per-rule project (one ast-grep
rule per shipped rule); both accepted by ast-grep, and matching the same call sites."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bench import astgrep_config, corpus, run
from panic_lens.rules.meta import SHIPPED, SHIPPED_DIR

Site = tuple[str, int, int]  # file, first byte, end byte


def scan(config: Path, tree: Path) -> list[dict[str, object]]:
    done = subprocess.run(
        [run.tool("ast-grep"), "scan", "-c", str(config), "--json=stream", str(tree)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: error-level matches were found
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def sites(matches: list[dict[str, object]]) -> list[Site]:
    out = []
    for m in matches:
        offsets = m["range"]["byteOffset"]  # type: ignore[index]
        out.append((str(m["file"]), int(offsets["start"]), int(offsets["end"])))
    return out


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
    """The hand-written project's rules are the hook rules, by id."""
    hand = {p.stem for p in astgrep_config.HAND_WRITTEN.glob("*.yml")}
    assert hand == {r.id for r in SHIPPED if astgrep_config.is_hook(r)}
    assert len(hand) == 5
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
    assert len(language) == len(SHIPPED) - 5
    assert [i for i in language if (i, i) not in found] == []


def test_the_command_line_writes_either_project(tmp_path: Path) -> None:
    assert astgrep_config.main(["--per-rule", str(tmp_path / "per")]) == 0
    assert (tmp_path / "per" / "sgconfig.yml").read_text().endswith("ruleDirs:\n  - rules\n")
    assert len(list((tmp_path / "per" / "rules").glob("*.yml"))) == len(SHIPPED)
    assert astgrep_config.main([str(tmp_path / "one")]) == 0
    assert [p.name for p in (tmp_path / "one" / "rules").glob("*.yml")] == [
        f"{astgrep_config.ONE_RULE_ID}.yml"
    ]
    assert astgrep_config.main(["--with-derived", str(tmp_path / "every")]) == 0
    assert len(list((tmp_path / "every" / "rules").glob("*.yml"))) == 1
    assert astgrep_config.main([]) == 2
    assert astgrep_config.main(["--per-rule"]) == 2
    assert astgrep_config.main(["--with-derived"]) == 2
    assert astgrep_config.main(["--per-rule", "a", "b"]) == 2


def test_the_baseline_is_one_rule_with_every_call_shape_once(tmp_path: Path) -> None:
    """One rule file, one `any:` whose items are every language rule's call patterns and every
    hook rule's hand-written rule body, none twice (many rules share `$R.init($$$A)`)."""
    config = astgrep_config.write_one_rule(tmp_path / "sg")
    (only,) = (config.parent / "rules").glob("*.yml")
    text = only.read_text()
    assert text.count("\nid: ") + text.startswith("id: ") == 1
    items = text.split("\n  any:\n", 1)[1]
    patterns = [line[len("    - pattern: ") :] for line in items.splitlines()
                if line.startswith("    - pattern: ")]  # fmt: skip
    expected = {json.dumps(p) for r in SHIPPED if not astgrep_config.is_hook(r)
                for p in astgrep_config.call_patterns(r.spec)}  # type: ignore[arg-type]  # fmt: skip
    assert expected <= set(patterns) and len(patterns) == len(set(patterns))
    for rule in SHIPPED:
        if astgrep_config.is_hook(rule):
            first, *rest = astgrep_config.hook_rule_body(rule)
            body = "\n".join([f"    - {first}", *(f"      {line}" for line in rest)])
            assert items.count(body + "\n") == 1, rule.id
    assert "$R.init($$$A)" in text and text.count('"$R.init($$$A)"') == 1


def test_the_like_for_like_project_has_the_derived_rules_shapes_too(tmp_path: Path) -> None:
    """`checked_rules` is what `check` runs: the shipped rule files, then the rules derived
    from the shipped records; its one rule has every shape of the baseline's and those of the
    derived rules (`Tensor::argmax` is a derived rule's call, in no rule file)."""
    rules = astgrep_config.checked_rules()
    assert rules[: len(SHIPPED)] == SHIPPED
    derived = rules[len(SHIPPED) :]
    assert derived and all(r.spec is not None and r.spec.source.startswith("<derived")
                           for r in derived)  # fmt: skip
    base = astgrep_config.write_one_rule(tmp_path / "base").parent / "rules"
    every = astgrep_config.write_one_rule(tmp_path / "every", rules).parent / "rules"
    (base_rule,), (every_rule,) = base.glob("*.yml"), every.glob("*.yml")
    base_items = set(base_rule.read_text().split("\n  any:\n", 1)[1].splitlines())
    every_items = set(every_rule.read_text().split("\n  any:\n", 1)[1].splitlines())
    assert base_items < every_items
    assert '    - pattern: "$R.argmax($$$A)"' in every_items - base_items


def test_the_one_rule_and_per_rule_projects_match_the_same_call_sites(tmp_path: Path) -> None:
    """On a small generated workspace and the shipped rules' own examples: the same set of
    call sites, the one rule reporting each site once, the per-rule project once per rule."""
    tree = tmp_path / "tree"
    corpus.generate(tree / "generated", 60)
    shutil.copytree(SHIPPED_DIR, tree / "examples")
    one = scan(astgrep_config.write_one_rule(tmp_path / "one"), tree)
    per = scan(astgrep_config.write_config(tmp_path / "per"), tree)
    assert {m["ruleId"] for m in one} == {astgrep_config.ONE_RULE_ID}
    one_sites, per_sites = sites(one), sites(per)
    assert len(one_sites) == len(set(one_sites))
    assert set(one_sites) == set(per_sites)
    assert len(per_sites) > len(set(per_sites))  # sites several rules match: the per-rule cost
    # every rule in the per-rule project found something here, so the sets compare every rule
    assert {m["ruleId"] for m in per} == {r.id for r in SHIPPED}


def test_a_hook_rule_file_without_a_rule_body_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = next(r for r in SHIPPED if astgrep_config.is_hook(r))
    monkeypatch.setattr(astgrep_config, "HAND_WRITTEN", tmp_path)
    with pytest.raises(FileNotFoundError, match=hook.id):
        astgrep_config.hook_rule_body(hook)
    (tmp_path / f"{hook.id}.yml").write_text(f"id: {hook.id}\nlanguage: rust\n")
    with pytest.raises(ValueError, match="no top-level `rule:`"):
        astgrep_config.hook_rule_body(hook)
    (tmp_path / f"{hook.id}.yml").write_text(f"id: {hook.id}\nrule:\nlanguage: rust\n")
    with pytest.raises(ValueError, match="is empty"):
        astgrep_config.hook_rule_body(hook)

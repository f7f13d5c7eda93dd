"""The rule-count benchmark's variants are real rules: they load, reach the asked total, and
find nothing where nothing panics (so the timing compares equal results)."""

from __future__ import annotations

from pathlib import Path

from bench import rule_scale
from panic_lens import engine
from panic_lens.rules import meta
from panic_lens.rules.language.load import load_rule_folders


def test_variants_fill_the_registry_to_the_total(tmp_path: Path) -> None:
    written = rule_scale.variant_rules(tmp_path, 100)
    loaded = load_rule_folders([tmp_path])
    assert loaded.errors == ()
    assert len(loaded.rules) == written == 100 - len(meta.SHIPPED)


def test_variants_run_and_find_nothing(tmp_path: Path) -> None:
    rule_scale.variant_rules(tmp_path, 100)
    loaded = load_rule_folders([tmp_path])
    src = (
        "use burn::nn::{BatchNormConfig, DropoutConfig, InstanceNormConfig, LayerNormConfig,\n"
        "    LinearConfig};\nuse burn::prelude::*;\n"
        "fn f(d: &Device) {\n"
        "    let x = Tensor::<2>::zeros([2, 3], d);\n"
        "    let _ = x.clone().slice([0..1]);\n"
        "    let _ = LinearConfig::new(3, 4).init(d);\n"
        "    let _ = DropoutConfig::new(0.1).init();\n"
        "    let _ = LayerNormConfig::new(4).init(d);\n"
        "    let _ = BatchNormConfig::new(4).init(d);\n"
        "    let _ = InstanceNormConfig::new(4).init(d);\n"
        "}\n"
    )
    meta.set_added_rules(loaded.rules)
    try:
        analysis = engine.analyze(src, "src/lib.rs")
    finally:
        meta.set_added_rules(())
    assert analysis.notes == () and analysis.findings == ()
    variant_hovers = {h.rule for h in analysis.hovers if h.rule.startswith("bench-variant")}
    # a variant (over a config no shipped rule reads: the norms' inits) bound a call and
    # evaluated
    assert variant_hovers


def test_derive_scale_writes_loadable_records(tmp_path: Path) -> None:
    from bench import derive_scale
    from panic_lens.catalog import load_catalog

    path = tmp_path / "records.jsonl"
    distinct = derive_scale.write_records(path, 60)
    loaded = load_catalog([path], include_default=False)
    assert loaded.errors == () and len(loaded.catalog) == 60 and distinct >= 40


def test_every_file_mode_finds_what_the_prefiltered_check_finds(tmp_path: Path) -> None:
    """The benchmark's configurations with the prefilter off analyse more files and find the
    same: the prefilter and the per-file rule gate skip only what cannot fire."""
    import json
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    golden = repo / "tests" / "golden"
    outputs = []
    for mode in ("shipped", "shipped/every-file"):
        child = ["--child", mode, str(tmp_path), str(golden)]
        cmd = [sys.executable, "-m", "bench.rule_scale", *child]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=repo)
        assert run.returncode in (0, 1), run.stderr
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]["findings"]) >= 10

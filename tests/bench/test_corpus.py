"""The corpus generator: reproducible, parseable Rust, and its shapes mean what they claim."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bench import corpus, shapes
from panic_lens.engine import analyze
from panic_lens.rust.syntax import parse

RULE_OF_SHAPE = {
    shapes.ctc_shape: "ctc-target-capacity",
    shapes.async_policy_shape: "async-policy-load-record",
    shapes.router_shape: "router-unsupported-dtype",
    shapes.interpolate_shape: "interpolate-backward-mode",
}


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_same_seed_same_bytes_and_stats_match_disk(tmp_path: Path) -> None:
    a = corpus.generate(tmp_path / "a", 40, seed=3)
    b = corpus.generate(tmp_path / "b", 40, seed=3)
    assert a == b
    assert tree_bytes(tmp_path / "a") == tree_bytes(tmp_path / "b")
    rust = list((tmp_path / "a").rglob("*.rs"))
    assert a.files == len(rust) == 40 + 1  # one lib.rs for the single crate
    assert a.lines == sum(p.read_text().count("\n") for p in rust)
    assert corpus.generate(tmp_path / "c", 40, seed=4) != a


def test_files_split_into_crates_of_a_workspace(tmp_path: Path) -> None:
    corpus.generate(tmp_path, 250, seed=1)
    manifests = sorted(p.parent.name for p in (tmp_path / "crates").glob("*/Cargo.toml"))
    assert manifests == ["app_000", "app_001", "app_002"]
    assert "crates/app_002" in (tmp_path / "Cargo.toml").read_text()


def test_generated_rust_parses_without_errors(tmp_path: Path) -> None:
    corpus.generate(tmp_path, 30, seed=9, hit_ratio=0.5)
    broken = [p for p in tmp_path.rglob("*.rs") if parse(p.read_bytes()).root_node.has_error]
    assert broken == []
    assert not parse(corpus.big_file(800).encode()).root_node.has_error


def test_big_file_reaches_the_requested_length() -> None:
    assert corpus.big_file(5000).count("\n") >= 5000


@pytest.mark.parametrize(
    "shape",
    [
        shapes.ctc_shape,
        shapes.async_policy_shape,
        shapes.router_shape,
        shapes.interpolate_shape,
    ],
    ids=lambda s: s.__name__,
)
def test_risky_shapes_are_flagged_and_safe_ones_are_not(
    shape: Callable[[random.Random, bool], str], make_crate: Callable[..., Path]
) -> None:
    rule = RULE_OF_SHAPE[shape]
    for seed in range(4):
        rng = random.Random(seed)
        for risky in (True, False):
            src = shapes.RULE_IMPORTS + shape(rng, risky)
            crate = make_crate(f"c{seed}{risky}", {"src/lib.rs": src})
            rules = [f.rule for f in analyze(src, crate / "src/lib.rs").findings]
            assert (rule in rules) is risky, (seed, risky, src)

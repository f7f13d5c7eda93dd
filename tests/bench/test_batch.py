"""batch.check_paths gives exactly engine.check_paths's result: no cache, cold, warm, parallel,
and after edits of a source, a neighbouring source (crate constants), Cargo.toml and settings."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bench import corpus
from panic_lens import batch, engine, prefilter
from panic_lens.cache import AnalysisCache
from panic_lens.model import Settings
from panic_lens.rules.meta import rules

REPO = Path(__file__).resolve().parents[2]
GOLDEN = sorted(p for p in (REPO / "tests" / "golden").iterdir() if p.is_dir())
CTC_FILE = """use burn::prelude::*;
use burn::tensor::module::ctc_loss;
use crate::limits::WIDTH;

pub fn warmup(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([4, WIDTH], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], WIDTH as i64, device);
    ctc_loss(log_probs, targets, il, tl, 0)
}
"""
INTERP_FILE = """use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn resize(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bilinear))
}
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    corpus.generate(root, 50, seed=11, hit_ratio=0.5)
    return root


def small_crate(make_crate: Callable[..., Path], width: int = 5000) -> Path:
    return make_crate(
        "app",
        {
            "src/lib.rs": "pub mod limits;\npub mod train;\npub mod resize;\n",
            "src/limits.rs": f"pub const WIDTH: usize = {width};\n",
            "src/train.rs": CTC_FILE,
            "src/resize.rs": INTERP_FILE,
        },
    )


def test_no_cache_serial_and_parallel_equal_the_engine(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [generated, REPO / "examples", *GOLDEN]
    cold = engine.check_paths(paths)
    assert cold.findings, "the trees have findings to compare"
    assert batch.check_paths(paths, jobs=1) == cold
    monkeypatch.setattr(batch, "PARALLEL_MIN_BYTES", 0)
    result, stats = batch.run_check(paths, jobs=2)
    assert stats.workers == 2
    assert result == cold


@pytest.mark.parametrize(
    ("share", "piece_bytes"),
    [(10**9, 1), (batch.SCAN_SHARE, 1), (batch.SCAN_SHARE, batch.SCAN_PIECE_BYTES), (1, 10**9)],
    ids=["one-file-each", "pieces-shrink-to-one-file", "default", "whole-crates"],
)
def test_reading_and_prefiltering_in_the_workers_equals_the_engine(
    generated: Path,
    make_crate: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    share: int,
    piece_bytes: int,
) -> None:
    """A large tree without a cache: the workers read, prefilter and analyse runs of files
    (one file each, pieces of crates, whole crates). Errors, notes, findings and counts are
    the engine's, with an unreadable file and a crate whose Cargo.toml is broken among them."""
    broken = small_crate(make_crate)
    (broken / "Cargo.toml").write_text("[package\n")
    (broken / "src" / "gone.rs").symlink_to(broken / "src" / "missing.rs")
    paths = [generated, REPO / "examples", broken, *GOLDEN, broken / "absent.rs"]
    cold = engine.check_paths(paths)
    assert cold.findings and cold.notes and len(cold.errors) == 2
    monkeypatch.setattr(batch, "SCAN_MIN_BYTES", 0)
    monkeypatch.setattr(batch, "SCAN_SHARE", share)
    monkeypatch.setattr(batch, "SCAN_PIECE_BYTES", piece_bytes)
    monkeypatch.setattr(batch, "Analyser", None)  # the other path would fail here
    result, stats = batch.run_check(paths, jobs=2)
    assert result == cold
    assert stats.workers == 2 and stats.files == cold.files
    assert 0 < stats.candidates == stats.analysed < stats.files


def test_scan_tasks_keep_crates_whole_until_the_end_of_the_work() -> None:
    """Every file in exactly one task, each task a run of one crate's files in walk order,
    handed out largest crate first. With two jobs, a crate goes whole while it is at most a
    quarter of the work not yet handed out, else in pieces of a quarter of what is left."""
    crates = {"a": 10, "big": 40, "b": 10, "c": 10, "d": 10}
    files = [
        os.path.join(os.sep, "t", crate, "src", f"{i}.rs")
        for crate, n in crates.items()
        for i in range(n)
    ]
    sizes = [batch.SCAN_PIECE_BYTES] * len(files)  # a file per piece at least
    tasks = batch.scan_tasks(files, sizes, 2)
    assert sorted(f for task in tasks for f in task) == sorted(files)
    for task in tasks:
        start = files.index(task[0])
        assert task == files[start : start + len(task)]
    crate = [os.path.basename(batch._crate_key(task[0])) for task in tasks]
    # big: 40 of 80 files left, pieces of 80/4 and 60/4, then the 5 left (of 45: whole);
    # a: 10 of 40 (whole); b: 10 of 30 (7, then the 3 left); c: 10 of 20 (5, 3, then 2);
    # d: the last 10 (2, 2, then single files)
    assert list(zip(crate, map(len, tasks), strict=True)) == [
        ("big", 20), ("big", 15), ("big", 5), ("a", 10), ("b", 7), ("b", 3),
        ("c", 5), ("c", 3), ("c", 2), *[("d", 2)] * 2, *[("d", 1)] * 6,
    ]  # fmt: skip


def test_a_small_tree_or_one_job_stays_in_this_process(generated: Path) -> None:
    _, stats = batch.run_check([generated], jobs=1)
    assert stats.workers == 1
    _, stats = batch.run_check([REPO / "examples"], jobs=2)  # far below SCAN_MIN_BYTES
    assert stats.workers == 1


def test_parallel_workers_store_entries_a_warm_run_reads(
    generated: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers write the cache entries of what they analyse; batches of one file each."""
    monkeypatch.setattr(batch, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(batch, "BATCH_BYTES", 1)
    paths = [generated, REPO / "examples"]
    expected = engine.check_paths(paths)
    first, cold = batch.run_check(paths, cache=AnalysisCache(private_cache), jobs=2)
    assert first == expected and cold.workers == 2 and cold.analysed > 2
    assert len(list(private_cache.glob("??/*.json"))) == cold.analysed
    second, warm = batch.run_check(paths, cache=AnalysisCache(private_cache), jobs=2)
    assert second == expected and warm.cache_hits == warm.candidates and warm.analysed == 0


def test_cold_then_warm_cache_equal_the_engine(generated: Path, private_cache: Path) -> None:
    paths = [generated, REPO / "examples"]
    expected = engine.check_paths(paths)
    first, cold_stats = batch.run_check(paths, cache=AnalysisCache(private_cache))
    second, warm_stats = batch.run_check(paths, cache=AnalysisCache(private_cache))
    assert first == second == expected
    assert cold_stats.cache_hits == 0 and cold_stats.analysed == cold_stats.candidates > 0
    assert warm_stats.cache_hits == warm_stats.candidates and warm_stats.analysed == 0


def test_prefilter_skips_files_but_keeps_every_file_with_findings(generated: Path) -> None:
    _, stats = batch.run_check([generated])
    assert 0 < stats.candidates < stats.files
    flagged = {f.path for f in engine.check_paths([generated, *GOLDEN]).findings}
    filt = prefilter.Prefilter({})
    assert all(filt.keeps(str(p), Path(str(p)).read_bytes()) for p in flagged)


def test_needles_come_from_the_rules_conditions() -> None:
    def keeps(data: bytes) -> bool:
        return prefilter.Prefilter({}).keeps("lib.rs", data)

    for rule in rules():
        assert rule.prefilter_groups, rule.id
        for group in rule.prefilter_groups:
            assert keeps(" x ".join(group).encode()), group
            for word in group if len(group) > 1 else ():  # every word of a group is needed
                assert not keeps(word.encode()), (group, word)
    assert not keeps(b'fn main() { println!("hello"); }')


def test_names_a_crate_gives_an_api_keep_its_files(make_crate: Callable[..., Path]) -> None:
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod prelude;\npub mod agent;\n",
            "src/prelude.rs": "pub use burn::tensor::module::{ctc_loss as ctc, conv1d};\n"
            "fn cast(n: u32) -> usize { n as usize }\n",
            "src/agent.rs": "use crate::prelude::ctc as loss;\n"
            "pub fn f(a: T, b: T, c: T, d: T) -> T { loss(a, b, c, d, 0) }\n",
            "src/plain.rs": "pub fn g(n: usize) -> usize { n + 1 }\n",
        },
    )
    texts = [p.read_bytes() for p in sorted((crate / "src").glob("*.rs"))]
    assert prefilter.crate_aliases(texts) == (b"ctc", b"loss")
    filt = prefilter.Prefilter({})
    assert filt.keeps(str(crate / "src/agent.rs"), (crate / "src/agent.rs").read_bytes())
    assert not filt.keeps(str(crate / "src/plain.rs"), (crate / "src/plain.rs").read_bytes())
    assert batch.check_paths([crate]) == engine.check_paths([crate])


def test_a_lone_suppression_comment_still_gets_its_hint(make_crate: Callable[..., Path]) -> None:
    crate = make_crate("app", {"src/lib.rs": "// panic-lens: allow(ctc-target-capacity) old\n"})
    expected = engine.check_paths([crate])
    assert [f.rule for f in expected.findings] == ["panic-lens-suppression"]
    assert batch.check_paths([crate], cache=AnalysisCache()) == expected


def warm_equals_fresh(crate: Path, cache: Path, settings: Settings | None = None) -> list[str]:
    """Run through the (now warm) cache and from scratch; they must agree.

    Returns "rule:severity" of each finding."""
    cached = batch.check_paths([crate], settings=settings, cache=AnalysisCache(cache))
    assert cached == engine.check_paths([crate], settings=settings)
    return sorted(f"{f.rule}:{f.severity.value}" for f in cached.findings)


def test_editing_a_constant_in_another_file_invalidates(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = small_crate(make_crate, width=5000)
    assert "ctc-target-capacity:error" in warm_equals_fresh(crate, private_cache)
    (crate / "src/limits.rs").write_text("pub const WIDTH: usize = 512;\n")
    assert "ctc-target-capacity:error" not in warm_equals_fresh(crate, private_cache)


def test_editing_the_source_itself_invalidates(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = small_crate(make_crate)
    assert "interpolate-backward-mode:error" in warm_equals_fresh(crate, private_cache)
    resize = crate / "src/resize.rs"
    resize.write_text(resize.read_text().replace("Bilinear", "Nearest"))
    assert "interpolate-backward-mode:error" not in warm_equals_fresh(crate, private_cache)


def test_editing_cargo_toml_invalidates(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = small_crate(make_crate)
    before = warm_equals_fresh(crate, private_cache)
    manifest = crate / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace('"wgpu", "train", "rl"', '"ndarray"'))
    after = warm_equals_fresh(crate, private_cache)
    assert before != after


def test_a_cargo_lock_appearing_invalidates(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = small_crate(make_crate)
    warm_equals_fresh(crate, private_cache)
    (crate / "Cargo.lock").write_text('[[package]]\nname = "burn"\nversion = "0.21.0"\n')
    warm_equals_fresh(crate, private_cache)


def test_changed_settings_never_reuse_entries(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = small_crate(make_crate, width=3000)  # 2 * 3000 + 1 fits 8192, not 4096
    assert "ctc-target-capacity:error" not in warm_equals_fresh(crate, private_cache)
    small = Settings(ctc_capacity=4096)
    assert "ctc-target-capacity:error" in warm_equals_fresh(crate, private_cache, small)
    assert "ctc-target-capacity:error" not in warm_equals_fresh(crate, private_cache)


@pytest.mark.parametrize(
    "roots",
    [["."], [""], ["./"], ["./x"], ["x/"], ["ABS"], ["ABS/"], ["x/y/z.rs"], ["./x/y/z.rs"],
     [".", "x"], ["link"], ["src//"], ["x/../src"]],
)  # fmt: skip
def test_the_string_walk_yields_what_the_path_walk_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, roots: list[str]
) -> None:
    """`iter_rust_paths` (check's walk) and `iter_rust_files` (the engine's) name the same
    files the same way, in the same order: hidden folders, target/ and non-Rust files out,
    `.` components and doubled slashes as Path spells them, a symlinked folder walked."""
    for rel in ("a.rs", "src/b.rs", "src/.hidden/c.rs", "target/d.rs", "x/y/z.rs", "x/.e.rs",
                "x/notes.txt", "x/y/w.rs"):  # fmt: skip
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("fn f() {}\n")
    (tmp_path / "link").symlink_to(tmp_path / "x")
    monkeypatch.chdir(tmp_path)
    roots = [str(tmp_path) + r[3:] if r.startswith("ABS") else r for r in roots]
    expected = [str(p) for p in _path_walk(roots)]
    assert expected and list(engine.iter_rust_paths(roots)) == expected
    assert list(engine.iter_rust_files(roots)) == [Path(p) for p in expected]


def _path_walk(roots: list[str]) -> list[Path]:
    """The walk with Path joins, as the engine's was written first: the spelling to match."""
    found = []
    for raw in roots:
        root = Path(raw)
        if root.is_file():
            found.append(root)
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and d not in engine.SKIP_DIRS
            )
            found += [Path(dirpath) / n for n in sorted(filenames) if n.endswith(".rs")]
    return found


# A half-typed function that no rule looks into, next to one with a finding.
HALF_TYPED = """use burn::prelude::*;
use burn::tensor::module::ctc_loss;

pub fn scores(values: &[usize]) -> usize {
    let mut acc = 0;
    for state_21fn 0..values.len().min(10) {
        acc += values[state_21];
    }
    acc
}

pub fn warmup(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([4, 5000], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], 5000, device);
    ctc_loss(log_probs, targets, il, tl, 0)
}
"""


def test_a_half_typed_function_no_rule_reads_hides_no_finding(
    make_crate: Callable[..., Path], private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tree-sitter keeps the broken body's error inside it, so the finding next to it is
    reported; the cache-filling, warm and cache-less runs all agree."""
    crate = make_crate("app", {"src/lib.rs": HALF_TYPED})
    first, cold = batch.run_check([crate], cache=AnalysisCache(private_cache))
    second, warm = batch.run_check([crate], cache=AnalysisCache(private_cache))
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    third = batch.check_paths([crate])
    assert [f.rule for f in first.findings] == ["ctc-target-capacity"]
    assert first == second == third
    assert cold.analysed == 1 and warm.cache_hits == 1


def test_check_stores_what_it_reports(generated: Path, private_cache: Path) -> None:
    """Entries hold findings and notes, all `check` reports; hovers are the editor's and are
    not stored."""
    result, stats = batch.run_check([generated], cache=AnalysisCache(private_cache))
    cache = AnalysisCache(private_cache)
    entries = [cache.get(f.parent.name + f.stem) for f in private_cache.glob("??/*.json")]
    assert len(entries) == stats.analysed > 0
    assert all(entry is not None and entry.hovers == () for entry in entries)
    assert sum(len(entry.findings) for entry in entries if entry) == len(result.findings)

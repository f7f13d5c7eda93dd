"""The stat index: unchanged files are not read on a warm run, and every way a file can change
(touch, same-size rewrite with mtime restored, rename, delete, new file, a crate neighbour
giving a new alias) still gives exactly the engine's result."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from panic_lens import batch, cache, engine
from panic_lens.cache import AnalysisCache

CTC_AT = """use burn::prelude::*;
use burn::tensor::module::ctc_loss;

pub fn run(lp: Tensor<3>, device: &Device) -> Tensor<1> {{
    let targets = Tensor::<2, Int>::ones([4, {width}], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], {width}, device);
    ctc_loss(lp, targets, il, tl, 0)
}}
"""
PLAIN = "pub fn g(n: usize) -> usize { n + 1 }\n"


@pytest.fixture(autouse=True)
def no_racy_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test are seconds young; index them anyway (settle() waits a tick)."""
    monkeypatch.setattr(cache, "RACY_NS", 0)


def settle() -> None:
    """Let the filesystem clock tick past the last write, so a later write has a new ctime."""
    time.sleep(0.05)


def run(crate: Path, private_cache: Path) -> batch.BatchStats:
    result, stats = batch.run_check([crate], cache=AnalysisCache(private_cache))
    assert result == engine.check_paths([crate])
    return stats


def crate_with_ctc(make_crate: Callable[..., Path]) -> Path:
    crate = make_crate(
        "app",
        {"src/lib.rs": "pub mod a;\npub mod b;\n", "src/a.rs": CTC_AT.format(width=5000)},
    )
    (crate / "src/b.rs").write_text(PLAIN)
    settle()
    return crate


def findings(crate: Path) -> int:
    return len(engine.check_paths([crate]).findings)


def test_a_warm_run_reads_no_file(make_crate: Callable[..., Path], private_cache: Path) -> None:
    crate = crate_with_ctc(make_crate)
    cold = run(crate, private_cache)
    assert cold.files_read == cold.files == 3
    warm = run(crate, private_cache)
    assert warm.files_read == 0 and warm.cache_hits == warm.candidates > 0


def test_touch_without_change_rereads_only_that_file(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = crate_with_ctc(make_crate)
    run(crate, private_cache)
    os.utime(crate / "src/a.rs")
    assert run(crate, private_cache).files_read == 1


def test_same_size_rewrite_with_mtime_restored_is_seen(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    crate = crate_with_ctc(make_crate)
    run(crate, private_cache)
    assert findings(crate) == 1
    file = crate / "src/a.rs"
    before = file.stat()
    file.write_text(CTC_AT.format(width=1000))  # same length, fits the kernel
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = file.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert run(crate, private_cache).files_read >= 1
    assert findings(crate) == 0


def test_rename_delete_and_new_file(make_crate: Callable[..., Path], private_cache: Path) -> None:
    crate = crate_with_ctc(make_crate)
    run(crate, private_cache)
    (crate / "src/a.rs").rename(crate / "src/c.rs")
    settle()
    assert [f.path for f in engine.check_paths([crate]).findings] == [str(crate / "src/c.rs")]
    run(crate, private_cache)
    (crate / "src/c.rs").unlink()
    settle()
    run(crate, private_cache)
    assert findings(crate) == 0
    (crate / "src/d.rs").write_text(CTC_AT.format(width=6000))
    settle()
    assert run(crate, private_cache).files_read >= 1
    assert findings(crate) == 1


def test_a_neighbour_giving_an_alias_redoes_a_skipped_files_verdict(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    # a.rs names no burn API but through the crate's alias: until lib.rs gives it, no rule
    # can fire in it (expand on a tensor of known rank, as this test had, is a candidate now
    # that expand-incompatible-shape reads partial shapes)
    uses_alias = (
        "use burn::prelude::*;\n\n"
        "pub fn run(device: &Device) {\n"
        "    let _norm = crate::Gn::new(5, 32).init(device);\n}\n"
    )
    crate = make_crate("app", {"src/lib.rs": "pub mod a;\n", "src/a.rs": uses_alias})
    settle()
    skipped = run(crate, private_cache)
    assert skipped.candidates == 0 and findings(crate) == 0
    lib = crate / "src/lib.rs"
    lib.write_text("pub mod a;\npub use burn::nn::GroupNormConfig as Gn;\n")
    settle()
    kept = run(crate, private_cache)
    assert kept.candidates == 1  # a.rs: its stat is unchanged, its crate's aliases are not
    assert findings(crate) == 1


def test_young_files_are_not_indexed(
    make_crate: Callable[..., Path], private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 3_600 * 10**9)  # everything counts as just written
    crate = crate_with_ctc(make_crate)
    run(crate, private_cache)
    assert run(crate, private_cache).files_read == 3


def test_a_corrupt_index_is_ignored(make_crate: Callable[..., Path], private_cache: Path) -> None:
    crate = crate_with_ctc(make_crate)
    run(crate, private_cache)
    (private_cache / "stat-index.json").write_text('{"format": "1", "files": {"x": 1}')
    assert run(crate, private_cache).files_read == 3
    assert run(crate, private_cache).files_read == 0


def test_engine_notes_are_the_engines_cold_and_warm(
    make_crate: Callable[..., Path], private_cache: Path
) -> None:
    """A big file without any rule's call, a binary one, and a crate whose Cargo.toml is
    broken: the prefilter would skip them all, but the engine notes them."""
    crate = crate_with_ctc(make_crate)
    (crate / "src/big.rs").write_text("// filler\n" * (engine.MAX_FILE_BYTES // 10 + 1))
    (crate / "src/blob.rs").write_bytes(b"\0\x01\x02 not rust")
    broken = make_crate("broken", {"src/lib.rs": PLAIN})
    (broken / "Cargo.toml").write_text("[package\nname = ")
    settle()
    paths = [crate, broken]
    expected = engine.check_paths(paths)
    assert len(expected.notes) >= 3, expected.notes
    assert batch.check_paths(paths) == expected
    for _ in range(2):  # filling the cache, then warm
        assert batch.check_paths(paths, cache=AnalysisCache(private_cache)) == expected


def test_crate_digests_find_the_engines_manifest(make_crate: Callable[..., Path]) -> None:
    from panic_lens.cache import CrateDigests
    from panic_lens.rust.crate import find_manifest

    outer = make_crate("outer", {"src/lib.rs": PLAIN, "inner/src/lib.rs": PLAIN})
    (outer / "inner/Cargo.toml").write_text((outer / "Cargo.toml").read_text())
    golden = Path(__file__).resolve().parents[1] / "golden"
    files = [*outer.rglob("*.rs"), *golden.rglob("*.rs")]
    digests = CrateDigests()
    for file in files:
        folder = os.path.dirname(os.path.realpath(file))
        assert digests._manifest(folder) == find_manifest(file), file

"""The analysis cache: exact round trips, corrupt entries, the size bound, concurrent writers."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from panic_lens.cache import AnalysisCache, decode, encode
from panic_lens.engine import analyze
from panic_lens.model import Analysis

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples" / "burn-app" / "src").glob("*.rs"))


def analyses() -> list[Analysis]:
    return [analyze(p.read_bytes(), p) for p in EXAMPLES]


def test_json_round_trip_is_exact_for_real_analyses() -> None:
    found = analyses()
    assert any(a.findings and a.hovers for a in found)
    assert any(f.fixes and f.evidence for a in found for f in a.findings)
    for analysis in found:
        assert decode(json.loads(json.dumps(encode(analysis)))) == analysis


def test_put_then_get_and_a_missing_key(private_cache: Path) -> None:
    cache = AnalysisCache(private_cache)
    analysis = analyses()[0]
    cache.put("ab" * 16, analysis)
    assert cache.get("ab" * 16) == analysis
    assert cache.get("cd" * 16) is None


def test_a_corrupt_or_foreign_entry_is_a_miss(private_cache: Path) -> None:
    cache = AnalysisCache(private_cache)
    cache.put("ef" * 16, Analysis())
    entry = next(private_cache.rglob("*.json"))
    entry.write_text('{"t": "Analysis", "v": [[], [')
    assert cache.get("ef" * 16) is None
    entry.write_text('{"t": "Unknown", "v": []}')
    assert cache.get("ef" * 16) is None


def test_env_switch_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    assert AnalysisCache.from_env() is None
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "0")
    assert AnalysisCache.from_env() is not None


def test_prune_keeps_the_folder_under_its_bound(private_cache: Path) -> None:
    analysis = analyses()[-1]
    cache = AnalysisCache(private_cache, max_bytes=20_000)
    for i in range(60):
        cache.put(f"{i:032x}", analysis)
    assert cache.prune() > 0
    total = sum(p.stat().st_size for p in private_cache.rglob("*.json"))
    assert total <= 20_000
    assert cache.get(f"{59:032x}") == analysis  # the newest entries survive


def _hammer(folder: str, key: str, rounds: int) -> bool:
    """Write and read the same key; every read must be a miss or the whole entry."""
    cache = AnalysisCache(Path(folder))
    expected = analyses()
    for i in range(rounds):
        cache.put(key, expected[i % len(expected)])
        got = cache.get(key)
        if got is not None and got not in expected:
            return False
    return True


def test_concurrent_writers_never_expose_half_an_entry(private_cache: Path) -> None:
    with multiprocessing.get_context("fork").Pool(4) as pool:
        oks = pool.starmap(_hammer, [(str(private_cache), "aa" * 16, 40)] * 4)
    assert all(oks)
    assert not list(private_cache.rglob(".tmp-*"))


def test_get_reported_decodes_findings_and_notes_alone(private_cache: Path) -> None:
    cache = AnalysisCache(private_cache)
    for i, analysis in enumerate([*analyses(), Analysis(notes=("a.rs: skipped",))]):
        cache.put(f"{i:02x}" * 16, analysis)
        assert cache.get_reported(f"{i:02x}" * 16) == Analysis(
            analysis.findings, (), analysis.notes
        )
    entry = next(private_cache.rglob("*.json"))
    for bad in ('{"t": "Analysis", "v": [[', '{"t": "Finding", "v": []}', '{"t": "Analysis"}'):
        entry.write_text(bad)
        key = entry.parent.name + entry.stem
        assert cache.get_reported(key) is None


def test_a_write_that_cannot_land_leaves_no_temporary_file(private_cache: Path) -> None:
    """An entry or the stat index whose path is taken by a folder: the rename fails, nothing
    is counted as written, the run goes on, and no `.tmp-` file is left in the folder."""
    cache = AnalysisCache(private_cache)
    key = "ab" * 16
    (private_cache / key[:2] / f"{key[2:]}.json").mkdir(parents=True)
    cache.put(key, analyses()[0])
    assert cache.writes == 0 and cache.get(key) is None
    index = cache.stat_index()
    index.file.mkdir()
    index.record(str(EXAMPLES[0]), (1, 2, 3, 4, 5), "d" * 32, 10**18)
    assert index.changed
    index.save()
    assert sorted(p.name for p in private_cache.rglob(".tmp-*")) == []


def test_manifests_resolve_folders_as_realpath_does(tmp_path: Path) -> None:
    """`Manifests` resolves a folder from its parent's resolution: the same answer as
    `os.path.realpath` through linked folders, links to links and missing folders."""
    import os

    from panic_lens.cache import Manifests

    (tmp_path / "real" / "deep" / "src").mkdir(parents=True)
    (tmp_path / "real" / "Cargo.toml").write_text('[package]\nname = "r"\n')
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "hop").symlink_to("link")  # relative, to another link
    (tmp_path / "real" / "up").symlink_to("..")
    folders = [
        tmp_path / "link" / "deep" / "src",
        tmp_path / "hop" / "deep",
        tmp_path / "real" / "up" / "real" / "deep",
        tmp_path / "missing" / "deeper",
        tmp_path / "link" / "missing",
    ]
    manifests = Manifests()
    for folder in folders:
        expected = os.path.realpath(folder)
        assert manifests.folder_of(str(folder / "a.rs")) == expected, folder
    assert manifests.of(str(folders[0] / "a.rs")) == tmp_path / "real" / "Cargo.toml"


def test_crate_digests_from_the_walks_listings_are_the_same(tmp_path: Path) -> None:
    """A crate's digest lists every .rs file under `src/` (target/ included, hidden folders
    and links to folders not entered): the same whether its folders come from the run's walk
    (which skips target/) or are listed again."""
    from panic_lens.cache import CrateDigests
    from panic_lens.walk import Listing, iter_rust_paths

    crate = tmp_path / "crate"
    for rel in ("src/lib.rs", "src/a/b.rs", "src/target/t.rs", "src/.hidden/h.rs", "src/n.txt"):
        (crate / rel).parent.mkdir(parents=True, exist_ok=True)
        (crate / rel).write_text("pub fn f() {}\n")
    (crate / "Cargo.toml").write_text('[package]\nname = "c"\n')
    (crate / "src" / "linked").symlink_to(crate / "src" / "a")
    listings: dict[str, Listing] = {}
    files = list(iter_rust_paths([str(crate)], listings))
    assert str(crate / "src" / "target" / "t.rs") not in files
    assert str(crate / "src" / "target") not in listings
    plain, walked = CrateDigests(), CrateDigests(listings=listings)
    assert walked._rust_files(str(crate / "src")) == [
        str(crate / "src" / rel) for rel in ("lib.rs", "a/b.rs", "target/t.rs")
    ]
    assert walked.for_path(files[0]) == plain.for_path(files[0])
    (crate / "src" / "target" / "t.rs").write_text("pub fn g() {}\n")  # outside the walk
    assert CrateDigests(listings=listings).for_path(files[0]) != walked.for_path(files[0])

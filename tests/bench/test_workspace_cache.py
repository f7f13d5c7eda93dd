"""A workspace member that trains a crate lives outside that crate: editing its Cargo.toml must
reach `check`'s per-file cache, not only a fresh analysis."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from panic_lens import batch, cache, cli, engine

FIXTURE = Path(__file__).resolve().parents[1] / "golden" / "interpolate-workspace-trainer"


def severities(report: str) -> list[str]:
    return [f["severity"] for f in json.loads(report)["findings"]]


def test_editing_the_trainers_manifest_reaches_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    argv = ["check", "--format", "json", str(ws / "crates" / "backbone")]
    assert cli.main(argv) == 1
    trained = capsys.readouterr().out
    assert sorted(severities(trained)) == ["hint", "warning"]  # the test stays a hint

    manifest = ws / "crates" / "trainer" / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace('features = ["train"]', 'features = ["std"]'))
    # the per-file cache is keyed by the members' manifests too
    result = batch.check_paths([ws / "crates" / "backbone"], cache=cache.AnalysisCache.from_env())
    assert [f.severity.value for f in result.findings] == ["hint", "hint"]
    assert cli.main(argv) == 0
    assert severities(capsys.readouterr().out) == ["hint", "hint"]


def warm_matches_the_engine(paths: list[Path]) -> list[str]:
    """Fill the cache, then run warm: both give the engine's result; the warm severities."""
    for _ in range(2):
        result = batch.check_paths(paths, cache=cache.AnalysisCache.from_env())
        assert result == engine.check_paths(paths)
    return sorted(f.severity.value for f in result.findings)


def test_a_member_the_glob_finds_later_reaches_the_cache(tmp_path: Path) -> None:
    """The root's members glob finds a new folder: its manifest joins the key although no
    manifest the cache has seen changed."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    shutil.move(ws / "crates" / "trainer", tmp_path / "trainer")
    backbone = [ws / "crates" / "backbone"]
    assert warm_matches_the_engine(backbone) == ["hint", "hint"]
    shutil.move(tmp_path / "trainer", ws / "crates" / "trainer")
    assert warm_matches_the_engine(backbone) == ["hint", "warning"]


def test_editing_the_roots_members_reaches_the_cache(tmp_path: Path) -> None:
    """The workspace facts are remembered by the root manifest's bytes: new bytes, new facts."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    backbone = [ws / "crates" / "backbone"]
    assert warm_matches_the_engine(backbone) == ["hint", "warning"]
    root = ws / "Cargo.toml"
    members = '"crates/backbone", "crates/decoder", "crates/preview"'
    root.write_text(root.read_text().replace('"crates/*"', members))
    assert warm_matches_the_engine(backbone) == ["hint", "hint"]


def test_a_crate_that_becomes_its_own_workspace_reaches_the_cache(tmp_path: Path) -> None:
    """A `[workspace]` table added to the crate's own Cargo.toml makes it the root: the
    trainer is no longer in its workspace."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    backbone = [ws / "crates" / "backbone"]
    assert warm_matches_the_engine(backbone) == ["hint", "warning"]
    manifest = ws / "crates" / "backbone" / "Cargo.toml"
    inherited = '{ version = "0.21.0", features = ["std"], default-features = false }'
    text = manifest.read_text().replace("{ workspace = true }", inherited)
    text = text.replace('{ workspace = true, features = ["ndarray"] }', inherited)
    manifest.write_text(text + "\n[workspace]\n")
    assert warm_matches_the_engine(backbone) == ["hint", "hint"]


def test_a_warm_run_parses_no_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    warm_matches_the_engine([ws])
    parsed: list[bytes] = []
    real = cache.manifest_facts

    def counting(data: bytes) -> cache.ManifestFacts:
        parsed.append(data)
        return real(data)

    monkeypatch.setattr(cache, "manifest_facts", counting)
    batch.check_paths([ws], cache=cache.AnalysisCache.from_env())
    assert parsed == []
    (ws / "crates" / "preview" / "Cargo.toml").write_text(
        (ws / "crates" / "preview" / "Cargo.toml").read_text() + "\n# edited\n"
    )
    batch.check_paths([ws], cache=cache.AnalysisCache.from_env())
    assert len(parsed) == 1  # only the edited manifest's new bytes


def test_malformed_manifest_facts_in_the_index_are_ignored(
    tmp_path: Path, private_cache: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    backbone = [ws / "crates" / "backbone"]
    warm_matches_the_engine(backbone)
    index_file = private_cache / "stat-index.json"
    index = json.loads(index_file.read_text())
    assert index["manifests"], "the workspace facts are remembered"
    for number, key in enumerate(index["manifests"]):
        index["manifests"][key] = ["x", 1, None, [2]] if number % 2 else "bad"
    index_file.write_text(json.dumps(index))
    assert warm_matches_the_engine(backbone) == ["hint", "warning"]


def test_a_crates_backend_features_reach_the_cache(tmp_path: Path) -> None:
    """The crate's own Cargo.toml is in the key by its bytes: switching its burn backend from
    wgpu to ndarray changes a warm run's findings."""
    crate = tmp_path / "crate"
    shutil.copytree(FIXTURE.parent / "ctc-free-fn-wgpu", crate)
    before = warm_matches_the_engine([crate])
    manifest = crate / "Cargo.toml"
    ndarray = 'default-features = false, features = ["std", "ndarray", "train"]'
    manifest.write_text(manifest.read_text().replace('features = ["wgpu", "train"]', ndarray))
    after = warm_matches_the_engine([crate])
    assert before and after != before

"""A workspace member that trains a crate lives outside that crate: editing its Cargo.toml must
reach `check`'s per-file cache, not only a fresh analysis."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from panic_lens import batch, cache, cli

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

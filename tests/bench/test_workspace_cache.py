"""A workspace member that trains a crate lives outside that crate: editing its Cargo.toml must
reach `check`'s stored report and its per-file cache, not only a fresh analysis."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from panic_lens import batch, cache, cli
from panic_lens.commands import replay

FIXTURE = Path(__file__).resolve().parents[1] / "golden" / "interpolate-workspace-trainer"


def severities(report: str) -> list[str]:
    return [f["severity"] for f in json.loads(report)["findings"]]


def test_editing_the_trainers_manifest_reaches_replay_and_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 0)  # the files are seconds young: store anyway
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    argv = ["check", "--format", "json", str(ws / "crates" / "backbone")]
    time.sleep(0.05)
    assert cli.main(argv) == 1
    trained = capsys.readouterr().out
    assert sorted(severities(trained)) == ["hint", "warning"]  # the test stays a hint
    time.sleep(0.05)
    assert replay.replay(argv) == 1 and capsys.readouterr().out == trained  # stored

    manifest = ws / "crates" / "trainer" / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace('features = ["train"]', 'features = ["std"]'))
    time.sleep(0.05)
    assert replay.replay(argv) is None, "the member's manifest is a dependency of the report"
    capsys.readouterr()
    # the per-file cache (bypassing the stored report) is keyed by the members' manifests too
    result = batch.check_paths([ws / "crates" / "backbone"], cache=cache.AnalysisCache.from_env())
    assert [f.severity.value for f in result.findings] == ["hint", "hint"]
    assert cli.main(argv) == 0
    assert severities(capsys.readouterr().out) == ["hint", "hint"]

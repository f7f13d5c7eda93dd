"""In the editor: a backbone crate trained by another member of its workspace gets a warning
with the trainer's Cargo.toml as related information; when that manifest stops training,
the file's diagnostics follow (the crate context is re-read, not the old one kept)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lsp_helpers import diagnostics, initialize, open_doc, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient

FIXTURE = Path(__file__).resolve().parents[1] / "golden" / "interpolate-workspace-trainer"


def severities(found: list[types.Diagnostic]) -> list[types.DiagnosticSeverity | None]:
    return sorted((d.severity for d in found), key=lambda s: s or 0)


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_a_trainer_member_and_its_manifest_edit(
    client: LanguageClient, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    await initialize(client, ws, {"scope": "openFiles"})
    backbone = ws / "crates" / "backbone" / "src" / "lib.rs"
    uri = open_doc(client, backbone)
    warn, hint = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Hint
    found = await diagnostics(client, uri, lambda d: len(d) == 2)
    assert severities(found) == [warn, hint]
    [trained] = [d for d in found if d.severity == warn]
    manifest = ws / "crates" / "trainer" / "Cargo.toml"
    assert any(r.location.uri == uri_of(manifest) for r in trained.related_information or [])

    stamp = manifest.stat().st_mtime_ns
    manifest.write_text(manifest.read_text().replace('features = ["train"]', "features = []"))
    os.utime(manifest, ns=(stamp + 10**9, stamp + 10**9))  # a new mtime, however fast
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri_of(manifest), type=types.FileChangeType.Changed)]
        )
    )
    found = await diagnostics(client, uri, lambda d: severities(list(d)) == [hint, hint])
    assert all("workspace crate" not in d.message for d in found)

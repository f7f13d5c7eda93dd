"""`panic-lens check` goes through the cache: same report cold, warm and with the cache off."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens import cli

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "examples" / "burn-app"


def check_json(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["check", "--format", "json", str(APP)])
    return code, capsys.readouterr().out


def test_check_fills_then_reads_the_cache_and_can_be_turned_off(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cold = check_json(capsys)
    entries = sorted(private_cache.rglob("*.json"))
    assert cold[0] == 1 and entries, "findings reported and entries written"
    assert check_json(capsys) == cold
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(private_cache.parent / "unused"))
    assert check_json(capsys) == cold
    assert not (private_cache.parent / "unused").exists()

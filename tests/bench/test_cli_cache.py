"""`panic-lens check` goes through the cache: same report cold, warm and with the cache off."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens import cli
from panic_lens.rules.hooks import HOOKS

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


WARM_RUN = """
import sys
from panic_lens import cache
from panic_lens.cli import main
cache.RACY_NS = 0  # the files were just copied: index them anyway (see test_stat_index)
code = main(["check", "--format", "json", sys.argv[1]])
print(code, " ".join(sorted(sys.modules)))
"""


def test_a_warm_check_loads_neither_the_engine_nor_the_parser(
    private_cache: Path, tmp_path: Path
) -> None:
    """Every file answered by the cache: the rules' detectors, tree-sitter, the engine and the
    TOML parser are never imported (the cache key reads manifests as bytes)."""
    import os
    import shutil
    import subprocess
    import sys

    app = tmp_path / "app"
    shutil.copytree(APP, app)
    manifest = app / "Cargo.toml"  # its description names panic-lens: a table could follow
    manifest.write_text(manifest.read_text().replace("panic-lens", "this tool"))
    env = {**os.environ, "PANIC_LENS_CACHE_DIR": str(private_cache)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", WARM_RUN, str(app)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.splitlines()[-1]
        .split()  # after the report: the code and the modules
        for _ in range(2)
    ]
    (cold_code, *cold), (warm_code, *warm) = runs
    assert cold_code == warm_code == "1"
    assert "panic_lens.engine" in cold and "tree_sitter" in cold  # the fill analysed
    # the registry is read (its rule files key the cache) but no rule runs: neither a hook's
    # detector, the rule language's detector, nor the expression engine
    never = ("panic_lens.engine", "tree_sitter", "panic_lens.rust.facts", "cel_expr_python",
             "panic_lens.rules.language.detect", *HOOKS.values())  # fmt: skip
    for module in never:
        assert module not in warm, module

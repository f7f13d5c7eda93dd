"""The pre-commit hook (`.pre-commit-hooks.yaml`): valid by pre-commit's own schema, and run by
pre-commit itself (`try-repo`) on a small burn crate, installed from the wheels `make test`
collects (`.venv/wheelhouse`), offline."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from identify.identify import tags_from_filename
from pre_commit.clientlib import load_manifest

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / ".pre-commit-hooks.yaml"
WHEELHOUSE = ROOT / ".venv" / "wheelhouse"
RISKY = """use burn::prelude::*;
use burn::tensor::module::ctc_loss;

pub fn loss<B: Backend>(log_probs: Tensor<B, 3>, device: &B::Device) -> Tensor<B, 1> {
    let targets = Tensor::<B, 2, Int>::ones([4, 5000], device);
    let il = Tensor::<B, 1, Int>::full([4], 10, device);
    let tl = Tensor::<B, 1, Int>::full([4], 5000, device);
    ctc_loss(log_probs, targets, il, tl, 0)
}
"""
SAFE = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"


@pytest.fixture
def user_repo(tmp_path: Path) -> Path:
    """A git repository holding a burn crate on wgpu: a risky call, a safe file, a README."""
    repo = tmp_path / "user"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text(
        '[package]\nname = "user"\nversion = "0.1.0"\nedition = "2024"\n\n'
        '[dependencies]\nburn = { version = "0.21", features = ["wgpu"] }\n'
    )
    (repo / "src" / "lib.rs").write_text(RISKY)
    (repo / "src" / "safe.rs").write_text(SAFE)
    (repo / "README.md").write_text("ctc_loss is mentioned here, but this is not Rust.\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "crate"], check=True)
    return repo


def test_the_hook_definition_is_valid_and_takes_rust_files() -> None:
    (hook,) = load_manifest(str(HOOKS))  # pre-commit's own schema: raises when invalid
    assert hook["id"] == "panic-lens" and hook["language"] == "python"
    assert hook["entry"] == "panic-lens check" and hook["types"] == ["rust"]
    assert hook["pass_filenames"] is True and hook["require_serial"] is True
    assert "rust" in tags_from_filename("src/lib.rs") and "rust" not in tags_from_filename(
        "Cargo.toml"
    )


def test_the_entry_checks_the_files_it_is_given(user_repo: Path) -> None:
    """pre-commit runs `entry + args + file names` from the repository root."""
    (hook,) = load_manifest(str(HOOKS))
    command = [*shlex.split(hook["entry"]), "src/safe.rs", "src/lib.rs"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(command, cwd=user_repo, env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("src/lib.rs:8:5: error[ctc-target-capacity]")
    assert done.stdout.rstrip().endswith("in 2 files")


def test_pre_commit_runs_the_hook(user_repo: Path, tmp_path: Path) -> None:
    if not (WHEELHOUSE / ".built").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("no .venv/wheelhouse: `make test` collects it")
        pytest.skip("no .venv/wheelhouse (run `make test`, which collects it)")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PIP_NO_INDEX": "1",  # the hook's environment is installed from the wheels only
        "PIP_FIND_LINKS": str(WHEELHOUSE),
    }
    pre_commit = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "panic-lens"]
    done = subprocess.run(
        [*pre_commit, "--all-files"], cwd=user_repo, env=env, capture_output=True, text=True
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "- hook id: panic-lens" in out and "Failed" in out
    assert "src/lib.rs:8:5: error[ctc-target-capacity]" in out
    assert "1 finding (1 error) in 2 files" in out  # the two .rs files, not the README

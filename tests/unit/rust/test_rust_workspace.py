"""workspace: a member that depends on a crate and turns on burn's training feature trains it;
the interpolate finding says which member and on which line of its Cargo.toml."""

from __future__ import annotations

import os
from pathlib import Path

from panic_lens.engine import analyze
from panic_lens.model import Finding, Severity
from panic_lens.rust.crate import crate_context

RESIZE = (
    "use burn::prelude::*;\n"
    "use burn::tensor::module::interpolate;\n"
    "use burn::tensor::ops::{InterpolateMode, InterpolateOptions};\n"
    "pub fn up<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {\n"
    "    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bicubic))\n"
    "}\n"
)


def member(root: Path, name: str, deps: str, body: str = "") -> Path:
    folder = root / "crates" / name
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.1.0"\n\n[dependencies]\n{deps}',
        encoding="utf-8",
    )
    (folder / "src" / "lib.rs").write_text(body or "pub fn f() {}\n", encoding="utf-8")
    return folder / "src" / "lib.rs"


def workspace(root: Path, extra: str = "") -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\n'
        f'burn = {{ version = "0.21.0" }}\nbackbone = {{ path = "crates/backbone" }}\n{extra}',
        encoding="utf-8",
    )


def finding(path: Path) -> Finding:
    found = analyze(path.read_bytes(), str(path)).findings
    assert [f.rule for f in found] == ["interpolate-backward-mode"]
    return found[0]


def test_a_member_depending_through_another_trains_and_the_note_names_it(tmp_path: Path) -> None:
    workspace(tmp_path)
    backbone = member(tmp_path, "backbone", "burn = { workspace = true }\n", RESIZE)
    member(tmp_path, "model", "burn = { workspace = true }\nbackbone = { workspace = true }\n")
    member(
        tmp_path,
        "train",
        'model = { path = "../model" }\n'
        'burn = { workspace = true, features = ["wgpu", "train"] }\n',
    )
    f = finding(backbone)
    assert f.severity is Severity.WARNING
    assert "workspace crate `train`" in f.message
    assert "crates/train/Cargo.toml:7)" in f.message  # the line of the `train` feature
    where = f.evidence[-1]
    assert where.path == str(tmp_path / "crates" / "train" / "Cargo.toml")
    line = (tmp_path / "crates" / "train" / "Cargo.toml").read_bytes()[where.span.start_byte :]
    assert line.startswith(b'"train"') and where.span.start.row == 6


def test_no_training_member_or_no_dependency_stays_a_hint(tmp_path: Path) -> None:
    workspace(tmp_path)
    backbone = member(tmp_path, "backbone", "burn = { workspace = true }\n", RESIZE)
    member(tmp_path, "app", 'backbone = { workspace = true }\nburn = { version = "0.21" }\n')
    member(tmp_path, "tuner", 'burn = { version = "0.21", features = ["train"] }\n')
    f = finding(backbone)
    assert f.severity is Severity.HINT and crate_context(backbone).trained_by is None


def test_an_inherited_feature_points_at_the_workspace_manifest(tmp_path: Path) -> None:
    workspace(
        tmp_path, 'trained = { version = "0.21", package = "burn", features = ["autodiff"] }\n'
    )
    backbone = member(tmp_path, "backbone", "burn = { workspace = true }\n", RESIZE)
    member(tmp_path, "train", "trained = { workspace = true }\nbackbone = { workspace = true }\n")
    by = crate_context(backbone).trained_by
    assert by is not None and by.crate == "train" and by.feature == "autodiff"
    assert by.where == "Cargo.toml:7"


def test_a_training_dependency_is_named_before_a_dev_only_one(tmp_path: Path) -> None:
    workspace(tmp_path)
    backbone = member(tmp_path, "backbone", "burn = { workspace = true }\n", RESIZE)
    member(
        tmp_path,
        "a-tests",
        'backbone = { path = "../backbone" }\n'
        '[dev-dependencies]\nburn = { version = "0.21", features = ["train"] }\n',
    )
    member(
        tmp_path,
        "b-train",
        "[target.'cfg(unix)'.dependencies]\n"
        'burn = { version = "0.21", features = [\n    "train",\n] }\n'
        'backbone = { path = "../backbone" }\n',
    )
    by = crate_context(backbone).trained_by
    assert by is not None and by.crate == "b-train" and by.where == "crates/b-train/Cargo.toml:8"


def test_an_excluded_member_does_not_count(tmp_path: Path) -> None:
    workspace(tmp_path)
    text = (tmp_path / "Cargo.toml").read_text()
    (tmp_path / "Cargo.toml").write_text(
        text.replace('["crates/*"]', '["crates/*"]\nexclude = ["crates/train"]')
    )
    backbone = member(tmp_path, "backbone", "burn = { workspace = true }\n", RESIZE)
    member(
        tmp_path,
        "train",
        'backbone = { path = "../backbone" }\nburn = { version = "0.21", features = ["train"] }\n',
    )
    assert crate_context(backbone).trained_by is None


def test_editing_or_adding_a_member_changes_the_context(tmp_path: Path) -> None:
    """What the server sees: the crate context is re-read when a member's manifest changes or
    a member appears (the incremental analysis compares contexts)."""
    workspace(tmp_path)
    backbone = member(tmp_path, "backbone", "burn = { workspace = true }\n", RESIZE)
    trainer = member(tmp_path, "train", 'backbone = { path = "../backbone" }\nburn = "0.21"\n')
    assert crate_context(backbone).trained_by is None
    manifest = trainer.parent.parent / "Cargo.toml"
    manifest.write_text(
        manifest.read_text().replace('"0.21"', '{ version = "0.21", features = ["train"] }')
    )
    _tick(manifest)
    by = crate_context(backbone).trained_by
    assert by is not None and by.crate == "train"
    assert finding(backbone).severity is Severity.WARNING
    manifest.unlink()
    (tmp_path / "crates" / "train" / "src" / "lib.rs").unlink()
    (tmp_path / "crates" / "train" / "src").rmdir()
    (tmp_path / "crates" / "train").rmdir()
    _tick(tmp_path / "crates")
    assert crate_context(backbone).trained_by is None
    member(
        tmp_path,
        "late",
        'backbone = { path = "../backbone" }\n'
        'burn = { version = "0.21", features = ["autodiff"] }\n',
    )
    _tick(tmp_path / "crates")
    by = crate_context(backbone).trained_by
    assert by is not None and by.crate == "late"


def _tick(path: Path) -> None:
    """A later modification time than any before (the test writes faster than the clock)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))

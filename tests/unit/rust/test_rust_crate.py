"""crate: backends, features, version and metadata from the nearest Cargo.toml."""

from __future__ import annotations

import os
from pathlib import Path

from panic_lens.rust.crate import NO_MANIFEST, crate_context


def crate(tmp_path: Path, manifest: str, lock: str | None = None) -> Path:
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "Cargo.toml").write_text(manifest, encoding="utf-8")
    if lock is not None:
        (tmp_path / "Cargo.lock").write_text(lock, encoding="utf-8")
    src = tmp_path / "src" / "main.rs"
    src.write_text("fn main() {}\n", encoding="utf-8")
    return src


def test_features_backends_version_and_metadata(tmp_path: Path) -> None:
    src = crate(
        tmp_path,
        '[package]\nname = "a"\n[package.metadata.panic-lens]\nctcCapacity = 16384\n'
        '[dependencies]\nburn = { version = "0.22", features = ["wgpu", "train"] }\n',
        '[[package]]\nname = "burn"\nversion = "0.22.0-pre.2"\n',
    )
    ctx = crate_context(src)
    assert ctx.manifest == tmp_path / "Cargo.toml"
    assert ctx.backends == {"wgpu"} and ctx.cubecl and ctx.training
    assert ctx.burn_version == "0.22.0-pre.2"
    assert dict(ctx.metadata) == {"ctcCapacity": 16384}


def test_non_cubecl_backends_and_direct_backend_crates(tmp_path: Path) -> None:
    flex = crate(
        tmp_path / "a", '[dependencies]\nburn = { version = "0.22", features = ["ndarray"] }\n'
    )
    assert not crate_context(flex).cubecl and crate_context(flex).only_non_cubecl
    cuda = crate(tmp_path / "b", '[dependencies]\nburn = "0.22"\nburn-cuda = "0.22"\n')
    assert crate_context(cuda).cubecl


def test_workspace_inheritance(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n[workspace.dependencies]\n'
        'burn = { version = "0.22", features = ["cuda"] }\n'
        '[workspace.metadata.panic-lens]\nseverity = { "ctc-target-capacity" = "off" }\n',
        encoding="utf-8",
    )
    src = crate(
        tmp_path / "app", '[dependencies]\nburn = { workspace = true, features = ["autodiff"] }\n'
    )
    ctx = crate_context(src)
    assert ctx.backends == {"cuda"} and ctx.features == {"cuda", "autodiff"}
    assert ctx.metadata["severity"] == {"ctc-target-capacity": "off"}


def test_optional_backends_from_crate_features(tmp_path: Path) -> None:
    src = crate(tmp_path, '[features]\ngpu = ["burn/wgpu"]\n[dependencies]\nburn = "0.22"\n')
    ctx = crate_context(src)
    assert not ctx.cubecl and ctx.optional_backends == {"wgpu"}


def test_cache_is_invalidated_when_the_manifest_changes(tmp_path: Path) -> None:
    src = crate(tmp_path, '[dependencies]\nburn = { version = "0.22", features = ["ndarray"] }\n')
    assert not crate_context(src).cubecl
    manifest = tmp_path / "Cargo.toml"
    manifest.write_text('[dependencies]\nburn = { version = "0.22", features = ["cuda"] }\n')
    stat = manifest.stat()
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    assert crate_context(src).cubecl


def bump(path: Path) -> None:
    """A later modification time, as a write a moment later would give."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))


def test_a_lock_file_or_workspace_created_later_is_noticed(tmp_path: Path) -> None:
    """A long-running server asks again after `cargo build` writes Cargo.lock, or after a
    workspace Cargo.toml appears above the crate."""
    src = crate(tmp_path / "app", "[dependencies]\nburn = { workspace = true }\n")
    assert crate_context(src).burn_version is None and not crate_context(src).cubecl
    (tmp_path / "app" / "Cargo.lock").write_text('[[package]]\nname = "burn"\nversion = "0.21.0"\n')
    bump(tmp_path / "app")
    assert crate_context(src).burn_version == "0.21.0"
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["app"]\n'
        '[workspace.dependencies]\nburn = { version = "0.22", features = ["cuda"] }\n'
    )
    bump(tmp_path)
    assert crate_context(src).backends == {"cuda"}


def test_broken_manifest_is_an_error_value(tmp_path: Path) -> None:
    ctx = crate_context(crate(tmp_path, "[dependencies\n"))
    assert ctx.errors and "Cargo.toml" in ctx.errors[0] and not ctx.backends


def test_no_manifest(tmp_path: Path) -> None:
    lone = tmp_path / "lone.rs"
    lone.write_text("fn main() {}\n")
    assert crate_context(lone) == NO_MANIFEST and crate_context(None) == NO_MANIFEST


def test_renamed_and_target_specific_dependencies(tmp_path: Path) -> None:
    src = crate(
        tmp_path,
        '[dependencies]\nmy_burn = { package = "burn", version = "0.22", features = ["tch"] }\n'
        '[target.\'cfg(target_os = "linux")\'.dependencies]\nburn-rocm = "0.22"\n'
        '[features]\ngpu = ["my_burn?/cuda"]\n',
    )
    ctx = crate_context(src)
    assert ctx.backends == {"tch", "rocm"} and ctx.cubecl
    assert ctx.optional_backends == {"cuda"}  # `my_burn` is burn, renamed

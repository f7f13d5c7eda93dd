"""Reading Cargo manifests: parsed TOML cached by modification time, dependency tables, the
workspace root. Shared by `rust.crate` (a crate's context) and `rust.workspace` (its members).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

BURN_CRATES = frozenset({"burn", "burn-core", "burn-nn", "burn-tensor", "burn-train"})
TRAINING_FEATURES = frozenset({"train", "autodiff"})
_DEP_TABLES = ("dependencies", "dev-dependencies")
_toml_cache: dict[Path, tuple[int, tuple[dict[str, Any], str]]] = {}


def dep_tables(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    tables = [data.get(t, {}) for t in _DEP_TABLES]
    for target in data.get("target", {}).values():
        if isinstance(target, Mapping):
            tables.extend(target.get(t, {}) for t in _DEP_TABLES)
    return [t for t in tables if isinstance(t, Mapping)]


def package_name(name: str, spec: Any) -> str:
    if isinstance(spec, Mapping) and isinstance(spec.get("package"), str):
        return str(spec["package"])
    return name


def dep_features(spec: Any, ws_spec: Any) -> set[str]:
    """Features a dependency entry turns on, with `workspace = true` inheritance."""
    features: set[str] = set()
    for entry in (spec, ws_spec if inherits(spec) else None):
        if isinstance(entry, Mapping):
            features |= {f for f in entry.get("features", []) if isinstance(f, str)}
    return features


def inherits(spec: Any) -> bool:
    return isinstance(spec, Mapping) and spec.get("workspace") is True


def workspace_root(manifest: Path, data: Mapping[str, Any]) -> Path | None:
    if "workspace" in data:
        return manifest
    for folder in manifest.parent.parents:
        candidate = folder / "Cargo.toml"
        if candidate.is_file() and "workspace" in read_toml(candidate)[0]:
            return candidate
    return None


def read_toml(path: Path | None) -> tuple[dict[str, Any], str]:
    """Parsed TOML and an error text ("" when fine); unreadable files read as empty.

    Cached by modification time: every member of a workspace reads the same root manifest.
    """
    if path is None:
        return {}, ""
    stamp = mtime(path)
    cached = _toml_cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    import tomllib  # here: a warm `check` reads no manifest

    try:
        result: tuple[dict[str, Any], str] = (tomllib.loads(path.read_text(encoding="utf-8")), "")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        result = ({}, f"cannot read Cargo manifest: {exc}")
    _toml_cache[path] = (stamp, result)
    return result


def mtime(path: Path | None) -> int:
    try:
        return path.stat().st_mtime_ns if path is not None else 0
    except OSError:
        return -1


def panic_lens_tables(manifest: Path) -> list[tuple[Path, Mapping[str, Any]]]:
    """The `[workspace.metadata.panic-lens]` table of `manifest`'s workspace root and the
    `[package.metadata.panic-lens]` table of `manifest`, each with the Cargo.toml it is in
    (paths in them are relative to that file); missing tables are left out."""
    data = read_toml(manifest)[0]
    root = workspace_root(manifest, data)
    out: list[tuple[Path, Mapping[str, Any]]] = []
    for path, section in ((root, "workspace"), (manifest, "package")):
        source = read_toml(path)[0].get(section) if path is not None else None
        meta = source.get("metadata") if isinstance(source, Mapping) else None
        table = meta.get("panic-lens") if isinstance(meta, Mapping) else None
        if path is not None and isinstance(table, Mapping):
            out.append((path, table))
    return out


def member_fields(data: Mapping[str, Any]) -> tuple[bool, list[str], list[str]]:
    """What `members_of` reads from a workspace root's parsed manifest: whether it is a
    package itself, its `members` and its `exclude` patterns."""
    table = data.get("workspace")
    table = table if isinstance(table, Mapping) else {}
    return "package" in data, _strings(table.get("members")), _strings(table.get("exclude"))


def members_of(
    workspace: Path, package: bool, members: list[str], exclude: list[str]
) -> list[Path]:
    """`rust.workspace.member_manifests` from the root's `member_fields`."""
    root = workspace.parent
    found: dict[Path, None] = {}
    if package:
        found[workspace] = None
    excluded = {(root / e).resolve() for e in exclude}
    for pattern in members:
        for folder in sorted(glob.glob(os.path.join(glob.escape(str(root)), pattern))):
            candidate = Path(folder) / "Cargo.toml"
            if candidate.is_file() and (not excluded or Path(folder).resolve() not in excluded):
                found[candidate] = None
    return list(found)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

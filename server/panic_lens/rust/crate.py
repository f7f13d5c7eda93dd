"""Crate context from the nearest Cargo.toml: burn backends and features, version, settings table.

Cached per manifest and re-read when the manifest, the workspace root or Cargo.lock changes.
`workspace = true` dependencies inherit features from `[workspace.dependencies]`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panic_lens.rust.manifests import (
    BURN_CRATES,
    TRAINING_FEATURES,
    _toml_cache,  # noqa: F401  # cleared by tests that rewrite manifests in one process
)
from panic_lens.rust.manifests import dep_features as _dep_features
from panic_lens.rust.manifests import dep_tables as _dep_tables
from panic_lens.rust.manifests import mtime as _mtime
from panic_lens.rust.manifests import package_name as _package_name
from panic_lens.rust.manifests import read_toml as _read_toml
from panic_lens.rust.manifests import workspace_root as _workspace_root

if TYPE_CHECKING:
    from panic_lens.rust.workspace import Trainer

CUBECL_FEATURES = frozenset({"cuda", "rocm", "wgpu", "vulkan", "metal", "webgpu", "cpu"})
OTHER_BACKENDS = frozenset({"flex", "ndarray", "tch", "remote", "capture"})
BACKEND_FEATURES = CUBECL_FEATURES | OTHER_BACKENDS
CUBECL_CRATES = {
    "burn-cuda": "cuda",
    "burn-wgpu": "wgpu",
    "burn-cpu": "cpu",
    "burn-rocm": "rocm",
    "burn-cubecl": "cubecl",
}


@dataclass(frozen=True, slots=True)
class CrateContext:
    """What a rule may know about the crate a file belongs to.

    `backends`: backend features enabled on burn by the crate's dependencies (plus direct
    backend crates); `optional_backends`: those only a non-default crate feature turns on;
    `workspace`: the root Cargo.toml of the crate's workspace, if any; `trained_by` (read on
    demand, only the interpolate rule asks): the workspace member that trains this crate
    through a dependency on it (`rust.workspace`), if any.
    """

    manifest: Path | None = None
    backends: frozenset[str] = frozenset()
    optional_backends: frozenset[str] = frozenset()
    features: frozenset[str] = frozenset()
    burn_version: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    workspace: Path | None = None

    @property
    def trained_by(self) -> Trainer | None:
        """Read from the members' graph, which `rust.workspace` keeps while their manifests
        and folders stand: parsing every member's manifest is too slow to do for every run."""
        if self.manifest is None or self.workspace is None:
            return None
        from panic_lens.rust import workspace as members

        return members.trainer(self.manifest, self.workspace)

    @property
    def cubecl(self) -> bool:
        return bool(self.backends & (CUBECL_FEATURES | {"cubecl"}))

    @property
    def training(self) -> bool:
        return bool(self.features & TRAINING_FEATURES)

    @property
    def only_non_cubecl(self) -> bool:
        """A manifest names backends and none of them (even optional ones) is cubecl."""
        every = self.backends | self.optional_backends
        return bool(every) and not every & (CUBECL_FEATURES | {"cubecl"})


NO_MANIFEST = CrateContext()
_lock_cache: dict[Path, tuple[int, str | None]] = {}
_cache: dict[Path, tuple[tuple[Path | None, ...], tuple[int, ...], CrateContext]] = {}


def find_manifest(path: str | os.PathLike[str]) -> Path | None:
    """The nearest Cargo.toml at or above `path`'s directory."""
    start = _resolved(path)
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = folder / "Cargo.toml"
        if candidate.is_file():
            return candidate
    return None


def _resolved(path: str | os.PathLike[str]) -> Path:
    """`Path(path).resolve()`, kept per path: a keystroke asks again for the same file, and
    resolving costs a system call per folder of the path."""
    key = os.fspath(path)
    if not os.path.isabs(key):  # relative to the working folder, which may change
        return Path(key).resolve()
    found = _resolved_paths.get(key)
    if found is None:
        if len(_resolved_paths) >= 4096:
            _resolved_paths.clear()
        found = _resolved_paths[key] = Path(key).resolve()
    return found


_resolved_paths: dict[str | bytes, Path] = {}


def crate_context(path: str | os.PathLike[str] | None) -> CrateContext:
    """The context of the crate containing `path` (NO_MANIFEST when none is found)."""
    manifest = find_manifest(path) if path is not None else None
    return NO_MANIFEST if manifest is None else manifest_context(manifest)


def manifest_context(manifest: Path) -> CrateContext:
    """The context of the crate of `manifest`, read again when a file it came from changes."""
    cached = _cache.get(manifest)
    if cached is not None and cached[1] == tuple(_mtime(p) for p in cached[0]):
        return cached[2]
    data, error = _read_toml(manifest)
    workspace = _workspace_root(manifest, data)
    lock = _lock_file(manifest, workspace)
    context = _build(manifest, data, workspace, lock, error)
    from panic_lens.rust import workspace as members  # here: it reads the members on demand

    context = replace(context, workspace=workspace)
    # The files read, and the folders above the manifest: a workspace Cargo.toml or a
    # Cargo.lock created (or removed) there later changes a folder's modification time.
    above = manifest.parent.parents
    # the members' manifests and folders (the workspace graph, read once per workspace state)
    others = (
        members.watched_paths(workspace, members.members(workspace))
        if workspace is not None
        else []
    )
    watched = (manifest, workspace, lock, *(f / "Cargo.toml" for f in above), manifest.parent,
               *above, *others)  # fmt: skip
    _cache[manifest] = (watched, tuple(_mtime(p) for p in watched), context)
    return context


def manifest_notes(manifest: Path) -> tuple[tuple[str, ...], Mapping[str, Any]]:
    """`crate_context(..).errors` and `.metadata` of the crate of `manifest`, reading only the
    manifests (no lock file, dependency tables or watch list): what decides whether the
    engine notes something about every file of the crate."""
    data, error = _read_toml(manifest)
    workspace = _workspace_root(manifest, data)
    ws_data = _read_toml(workspace)[0] if workspace and workspace != manifest else data
    return ((f"{manifest}: {error}",) if error else ()), _metadata(data, ws_data)


def _build(
    manifest: Path, data: dict[str, Any], workspace: Path | None, lock: Path | None, error: str
) -> CrateContext:
    ws_data = _read_toml(workspace)[0] if workspace and workspace != manifest else data
    ws_deps = ws_data.get("workspace", {}).get("dependencies", {})
    burn_features = set()
    backends = set()
    for table in _dep_tables(data):
        for name, spec in table.items():
            crate = _package_name(name, spec)
            if crate in CUBECL_CRATES:
                backends.add(CUBECL_CRATES[crate])
            if crate in BURN_CRATES:
                burn_features |= _dep_features(spec, ws_deps.get(name))
    optional = _feature_forwarded(data, _burn_dep_keys(data)) - burn_features
    backends |= burn_features & BACKEND_FEATURES
    return CrateContext(
        manifest=manifest,
        backends=frozenset(backends),
        optional_backends=frozenset(optional & BACKEND_FEATURES),
        features=frozenset(burn_features),
        burn_version=_burn_version(lock),
        metadata=_metadata(data, ws_data),
        errors=(f"{manifest}: {error}",) if error else (),
    )


def _burn_dep_keys(data: Mapping[str, Any]) -> set[str]:
    """The dependency names (keys, renamed or not) that stand for a burn crate."""
    return {
        name
        for table in _dep_tables(data)
        for name, spec in table.items()
        if _package_name(name, spec) in BURN_CRATES
    }


def _feature_forwarded(data: Mapping[str, Any], burn_keys: set[str]) -> set[str]:
    """burn features the crate's own `[features]` can turn on (`burn/wgpu`, `burn?/cuda`)."""
    out: set[str] = set()
    for values in data.get("features", {}).values():
        for value in values if isinstance(values, list) else []:
            dep, _, feature = str(value).partition("/")
            if feature and dep.rstrip("?") in burn_keys:
                out.add(feature)
    return out


def _metadata(data: Mapping[str, Any], ws_data: Mapping[str, Any]) -> Mapping[str, Any]:
    """`[workspace.metadata.panic-lens]` overlaid by `[package.metadata.panic-lens]`."""
    merged: dict[str, Any] = {}
    for source in (ws_data.get("workspace", {}), data.get("package", {})):
        table = source.get("metadata", {}).get("panic-lens", {}) if isinstance(source, dict) else {}
        if isinstance(table, Mapping):
            merged.update(table)
    return merged


def _lock_file(manifest: Path, workspace: Path | None) -> Path | None:
    for root in (manifest.parent, workspace.parent if workspace else None):
        if root is not None and (root / "Cargo.lock").is_file():
            return root / "Cargo.lock"
    return None


def _burn_version(lock: Path | None) -> str | None:
    """burn's version in Cargo.lock, by a line scan: a workspace lock can be megabytes of TOML.

    Cached by modification time: every member of a workspace shares the one lock file."""
    if lock is None:
        return None
    stamp = _mtime(lock)
    cached = _lock_cache.get(lock)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        match = _LOCK_BURN.search(lock.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    version = match.group(1) if match else None
    _lock_cache[lock] = (stamp, version)
    return version


_LOCK_BURN = re.compile(r'^name = "burn"\r?\nversion = "([^"]+)"', re.MULTILINE)

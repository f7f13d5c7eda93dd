"""What one `check` run reads once and trusts until it ends: each folder's crate context, each
file's module path and each crate's `as` names (the rename gate). A long-lived process (the
server) never keeps one across edits; a run's files are analysed exactly as without it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from panic_lens.rust import modules
from panic_lens.rust.crate import (
    NO_MANIFEST,
    CrateContext,
    crate_context,
    find_manifest,
    manifest_context,
)
from panic_lens.rust.modules import RenameIndex


class CrateMemo:
    """Per `check` run (one per worker process): lookups that climb folders, stat manifests
    and resolve symlinks are done once per folder instead of once per file."""

    def __init__(self, read: Callable[[str], bytes] | None = None) -> None:
        """`read`: the run's store of file bytes, by path (the rename index reads through it)."""
        self.renames = RenameIndex(read)
        self._crates: dict[str, CrateContext] = {}  # folder as given -> its crate
        self._by_manifest: dict[Path, CrateContext] = {}
        self._real: dict[str, str] = {}  # folder as given -> resolved
        self._roots: dict[Path, Path] = {}  # a crate's src/ -> resolved

    def crate_context(self, path: str) -> CrateContext:
        """`rust.crate.crate_context(path)`, once per folder (a symlinked file on its own)."""
        if os.path.islink(path):
            return crate_context(path)
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._crates:
            manifest = find_manifest(path)
            if manifest is None:
                self._crates[folder] = NO_MANIFEST
            else:  # the folders of one crate share its context
                if manifest not in self._by_manifest:
                    self._by_manifest[manifest] = manifest_context(manifest)
                self._crates[folder] = self._by_manifest[manifest]
        return self._crates[folder]

    def module_path(self, path: str, src_root: Path) -> tuple[str, ...] | None:
        """`rust.modules.module_path`, resolving each folder and source root once."""
        if os.path.islink(path):
            return modules.module_path(Path(path), src_root)
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._real:
            self._real[folder] = os.path.realpath(folder)
        if src_root not in self._roots:
            self._roots[src_root] = src_root.resolve()
        real = Path(self._real[folder], os.path.basename(path))
        return modules.module_path_resolved(real, self._roots[src_root])

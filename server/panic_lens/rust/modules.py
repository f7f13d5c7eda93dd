"""A crate's module files: where a file sits in its crate, and the names of its sibling modules.

`crate::x::Y`, `super::Y` and `mod x;` name items of other files. The loader reads those files
(parsed once, cached by modification time) so `use crate::prelude::*` resolves like rustc does.
"""

from __future__ import annotations

from pathlib import Path

from panic_lens.rust.names import Imports, ModuleLoader
from panic_lens.rust.syntax import parse

_MAX_CACHED = 512
_cache: dict[Path, tuple[int, Imports]] = {}


def module_path(file: Path, src_root: Path) -> tuple[str, ...] | None:
    """`src/lib.rs` -> (), `src/a/mod.rs` -> ("a",), `src/a/b.rs` -> ("a", "b"); None outside."""
    try:
        parts = file.resolve().relative_to(src_root.resolve()).parts
    except ValueError:
        return None
    if not parts or not parts[-1].endswith(".rs"):
        return None
    stem = parts[-1][:-3]
    if len(parts) == 1 and stem in ("lib", "main"):
        return ()
    if len(parts) > 1 and parts[0] == "bin":
        return None  # each src/bin file is its own crate root
    return parts[:-1] if stem == "mod" else (*parts[:-1], stem)


def loader_for(src_root: Path) -> ModuleLoader:
    """Imports of the module at a path of the crate whose sources live in `src_root`."""

    def load(path: tuple[str, ...]) -> Imports | None:
        file = _module_file(src_root, path)
        return _imports_of(file, path, load) if file is not None else None

    return load


def _module_file(src_root: Path, path: tuple[str, ...]) -> Path | None:
    if not path:
        candidates = [src_root / "lib.rs", src_root / "main.rs"]
    else:
        base = src_root.joinpath(*path)
        candidates = [base.with_suffix(".rs"), base / "mod.rs"]
    return next((c for c in candidates if c.is_file()), None)


def _imports_of(file: Path, path: tuple[str, ...], load: ModuleLoader) -> Imports | None:
    try:
        stamp = file.stat().st_mtime_ns
        cached = _cache.get(file)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        src = file.read_bytes()
    except OSError:
        return None
    imports = Imports.module_level(parse(src), src, module_path=path, loader=load)
    if len(_cache) >= _MAX_CACHED:
        _cache.pop(next(iter(_cache)))
    _cache[file] = (stamp, imports)
    return imports

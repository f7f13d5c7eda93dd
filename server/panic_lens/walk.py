"""The files `check` reads: every Rust file under the given paths, which of them are not
source, and the result types of a check.

Apart from `engine` (which re-exports these names): `batch` answers a warm `check` from the
cache without importing the engine, the rules or the parser.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from panic_lens.model import Finding

SKIP_DIRS = frozenset({"target", "node_modules"})
MAX_FILE_BYTES = 10 * 2**20


@dataclass(frozen=True, slots=True)
class PathError:
    """A path that could not be read; the CLI exits 2 when there is one."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class CheckResult:
    findings: tuple[Finding, ...]
    errors: tuple[PathError, ...]
    files: int
    notes: tuple[str, ...] = ()  # each distinct engine note, e.g. a file skipped for its size


def is_binary(src: bytes) -> bool:
    """NUL bytes or invalid UTF-8 in the first 8 KiB: not Rust source."""
    head = src[:8192]
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # a character cut at the 8 KiB boundary is fine
    return False


def iter_rust_files(paths: Sequence[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every `.rs` file under `paths`, recursively, skipping `target/` and hidden folders.

    A path named explicitly is always yielded, hidden or not.
    """
    for path in iter_rust_paths(paths):
        yield Path(path)


def iter_rust_paths(
    paths: Sequence[str | os.PathLike[str]],
    listings: dict[str, Listing] | None = None,
    skip: Mapping[str, frozenset[str]] | None = None,
) -> Iterator[str]:
    """`iter_rust_files`'s files as strings, spelled as Path spells them: `check` walks large
    trees, and a Path object per file was a third of the walk's time. The order is
    `os.walk`'s (top-down, names sorted). `listings`, when given, receives each folder's
    `list_folder` by absolute path (the cache's crate digests list `src/` folders again).
    `skip`: file names to leave out, by absolute folder (the examples of added rules)."""
    for raw in paths:
        root = Path(raw)
        if root.is_file():
            yield str(root)
            continue
        top = str(root)  # normalised as Path spells it: `./x/` -> `x`, `` -> `.`
        absolute = os.path.isabs(top)
        stack = [top]
        while stack:
            dirpath = stack.pop()
            listed = list_folder(dirpath)
            if listed is None:
                continue
            if listings is not None:
                listings[dirpath if absolute else os.path.abspath(dirpath)] = listed
            # Path drops a leading `.` component (`./src/a.rs` is `src/a.rs`)
            folder = "" if dirpath == "." else dirpath[2:] if top == "." else dirpath
            left_out = skip.get(os.path.abspath(dirpath), ()) if skip else ()
            for name in listed[0]:
                if name not in left_out:
                    yield os.path.join(folder, name)
            below = [d for d in listed[1] if d not in SKIP_DIRS]
            stack.extend(os.path.join(dirpath, d) for d in reversed(below))


# A folder's `.rs` files (anything but a folder, links included) and the folders to walk into
# (not hidden, not links: `os.walk` does not follow them), names sorted.
Listing = tuple[list[str], list[str]]


def list_folder(folder: str) -> Listing | None:
    """`folder`'s Listing by one os.scandir (None when it cannot be listed, which `os.walk`
    skips too)."""
    files, below = [], []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if not is_dir:
                    if entry.name.endswith(".rs"):
                        files.append(entry.name)
                elif not entry.name.startswith(".") and not entry.is_symlink():
                    below.append(entry.name)
    except OSError:
        return None
    files.sort()
    below.sort()
    return files, below

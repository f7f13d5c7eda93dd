"""The files `check` reads: every Rust file under the given paths, which of them are not
source, and the result types of a check.

Apart from `engine` (which re-exports these names): `batch` answers a warm `check` from the
cache without importing the engine, the rules or the parser.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
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


def iter_rust_paths(paths: Sequence[str | os.PathLike[str]]) -> Iterator[str]:
    """`iter_rust_files`'s files as strings, spelled as Path spells them: `check` walks large
    trees, and a Path object per file was a third of the walk's time."""
    for raw in paths:
        root = Path(raw)
        if root.is_file():
            yield str(root)
            continue
        top = str(root)  # normalised as Path spells it: `./x/` -> `x`, `` -> `.`
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
            )
            # Path drops a leading `.` component (`./src/a.rs` is `src/a.rs`)
            folder = "" if dirpath == "." else dirpath[2:] if top == "." else dirpath
            for name in sorted(filenames):
                if name.endswith(".rs"):
                    yield os.path.join(folder, name)

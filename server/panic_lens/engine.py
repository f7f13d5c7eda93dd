"""The engine: run every rule over a source text or a set of paths and return findings.

Pure Python; never imports pygls or lsprotocol. The CLI and the server both call `analyze`,
so the editor and CI can never disagree.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from panic_lens.rules.base import Analysis, Finding
from panic_lens.settings import Settings

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog

SKIP_DIRS = frozenset({"target", "node_modules"})


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


def analyze(
    text: str | bytes,
    path: str | os.PathLike[str] | None = None,
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
) -> Analysis:
    """Analyse one Rust source text. `path` locates the crate (Cargo.toml) and names findings."""
    # Filled in by the rules layer: parse, build facts, run each rule, apply suppressions
    # and settings, attach bound record ids.
    return Analysis()


def iter_rust_files(paths: Sequence[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every `.rs` file under `paths`, recursively, skipping `target/` and hidden folders.

    A path named explicitly is always yielded, hidden or not.
    """
    for raw in paths:
        root = Path(raw)
        if root.is_file():
            yield root
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
            )
            for name in sorted(filenames):
                if name.endswith(".rs"):
                    yield Path(dirpath) / name


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
) -> CheckResult:
    """Analyse every Rust file under `paths`; unreadable paths become PathErrors."""
    findings: list[Finding] = []
    errors: list[PathError] = []
    count = 0
    for raw in paths:
        if not Path(raw).exists():
            errors.append(PathError(str(raw), "no such file or directory"))
    for file in iter_rust_files([p for p in paths if Path(p).exists()]):
        try:
            data = file.read_bytes()
        except OSError as exc:
            errors.append(PathError(str(file), exc.strerror or str(exc)))
            continue
        count += 1
        findings.extend(analyze(data, file, settings=settings, catalog=catalog).findings)
    findings.sort(key=lambda f: (f.path or "", f.span.start_byte, f.rule))
    return CheckResult(tuple(findings), tuple(errors), count)

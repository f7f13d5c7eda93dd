"""Training across a Cargo workspace: the member crates that depend on a crate (by path or by a
`workspace = true` path dependency, directly or through other members) and the first of them
whose manifest turns on burn's `train` or `autodiff` feature.

burn's `Autodiff` backend and `burn::train` exist only with one of those features (neither is a
default feature), so a member whose code trains says so in its Cargo.toml; that is the signal
read here, with the line it is on. Only manifests are read: sources stay per file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panic_lens.rust import manifests as crates


@dataclass(frozen=True, slots=True)
class Trainer:
    """A workspace member that trains a crate it depends on, and where its manifest says so.

    `row`/`col`/`end_col` (0-based, byte columns) and `start_byte`/`end_byte` locate the quoted
    feature in `file` (the member's Cargo.toml, or the workspace root's when inherited)."""

    crate: str  # the member's package name
    manifest: Path
    feature: str  # "train" or "autodiff"
    file: Path
    shown: str  # `file` relative to the workspace root, as reports show it
    row: int
    col: int
    end_col: int
    start_byte: int
    end_byte: int

    @property
    def where(self) -> str:
        return f"{self.shown}:{self.row + 1}"


def trainer(manifest: Path, workspace: Path | None) -> Trainer | None:
    """The member of `workspace` that trains the crate of `manifest` (None: none does)."""
    if workspace is None:
        return None
    graph = _graph(workspace)
    me = Path(os.path.realpath(manifest.parent))
    for dev in (False, True):  # a training [dependencies] entry before a dev-only one
        for member in _dependents(me, graph):
            found = graph.trainers.get((member, dev))
            if found is not None:
                return found
    return None


@dataclass(frozen=True, slots=True)
class _Graph:
    """A workspace's members, as read from the files in `watched` at `stamps`: each one's
    resolved folder, the folders of its path dependencies, and its training entries."""

    watched: tuple[Path, ...]
    stamps: tuple[int, ...]
    folders: Mapping[Path, Path]
    deps: Mapping[Path, frozenset[Path]]
    trainers: Mapping[tuple[Path, bool], Trainer]


_graphs: dict[Path, _Graph] = {}


def _graph(workspace: Path) -> _Graph:
    """The members' graph, read once per workspace while its manifests and folders stand:
    every member of a workspace asks for it."""
    cached = _graphs.get(workspace)
    if cached is not None and cached.stamps == tuple(map(_mtime, cached.watched)):
        return cached
    members = member_manifests(workspace)
    watched = (workspace, *watched_paths(workspace, members))
    stamps = tuple(map(_mtime, watched))
    trainers = {}
    for member in members:
        for dev in (False, True):
            found = _training_entry(member, workspace, dev)
            if found is not None:
                trainers[(member, dev)] = found
    graph = _Graph(
        watched,
        stamps,
        {m: Path(os.path.realpath(m.parent)) for m in members},
        {m: frozenset(_path_dependencies(m, workspace)) for m in members},
        trainers,
    )
    _graphs[workspace] = graph
    return graph


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1


def members(workspace: Path | None) -> list[Path]:
    """`member_manifests`, from the graph read once per workspace state (`_graph`)."""
    return list(_graph(workspace).folders) if workspace is not None else []


def member_manifests(workspace: Path | None) -> list[Path]:
    """The Cargo.toml of every member (`members` globs less `exclude`, and the root package)."""
    if workspace is None:
        return []
    return crates.members_of(workspace, *crates.member_fields(crates.read_toml(workspace)[0]))


def watched_paths(workspace: Path, members: list[Path]) -> list[Path]:
    data = crates.read_toml(workspace)[0]
    patterns = _strings(_table(data, "workspace").get("members"))
    folders = dict.fromkeys(_glob_root(workspace.parent, p) for p in patterns)
    return [*members, *folders]


def workspace_of(manifest: Path) -> Path | None:
    """The root Cargo.toml of the workspace `manifest`'s crate belongs to, if any."""
    return crates.workspace_root(manifest, crates.read_toml(manifest)[0])


def _glob_root(root: Path, pattern: str) -> Path:
    """The folder above `pattern`'s first wildcard (the pattern's own folder when it has none)."""
    parts = Path(pattern).parts
    wild = next((i for i, part in enumerate(parts) if _WILD.search(part)), len(parts))
    return root.joinpath(*parts[:wild])


_WILD = re.compile(r"[*?\[]")


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _ws_deps(workspace: Path) -> Mapping[str, Any]:
    return _table(_table(crates.read_toml(workspace)[0], "workspace"), "dependencies")


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _path_dependencies(member: Path, workspace: Path) -> Iterator[Path]:
    """The resolved folders of `member`'s path dependencies (its own or inherited)."""
    data = crates.read_toml(member)[0]
    ws_deps = _ws_deps(workspace)
    for table in crates.dep_tables(data):
        for name, spec in table.items():
            if not isinstance(spec, Mapping):
                continue
            if isinstance(spec.get("path"), str):
                yield Path(os.path.realpath(member.parent / spec["path"]))
            elif spec.get("workspace") is True:
                inherited = ws_deps.get(name)
                if isinstance(inherited, Mapping) and isinstance(inherited.get("path"), str):
                    yield Path(os.path.realpath(workspace.parent / inherited["path"]))


def _dependents(crate_dir: Path, graph: _Graph) -> list[Path]:
    """Members depending on `crate_dir`, nearest first (then by manifest path)."""
    seen: dict[Path, None] = {}
    frontier = {crate_dir}
    while frontier:
        step = sorted(
            m for m, deps in graph.deps.items()
            if m not in seen and graph.folders[m] != crate_dir and deps & frontier
        )  # fmt: skip
        seen.update(dict.fromkeys(step))
        frontier = {graph.folders[m] for m in step}
    return list(seen)


def _training_entry(member: Path, workspace: Path, dev: bool) -> Trainer | None:
    """`member`'s burn dependency entry that turns on a training feature, located."""
    data, _ = crates.read_toml(member)
    ws_deps = _ws_deps(workspace)
    for kind in ("dev-dependencies",) if dev else ("dependencies",):
        for name, spec in _tables_of_kind(data, kind):
            inherits = isinstance(spec, Mapping) and spec.get("workspace") is True
            package = crates.package_name(name, ws_deps.get(name) if inherits else spec)
            if package not in crates.BURN_CRATES:
                continue
            own = crates.dep_features(spec, None) & crates.TRAINING_FEATURES
            inherited = crates.dep_features(spec, ws_deps.get(name)) & crates.TRAINING_FEATURES
            for feature in sorted(own) or sorted(inherited):
                where = member if feature in own else workspace
                located = _locate(where, name, feature, kind if where == member else None)
                if located is not None:
                    crate = _table(data, "package").get("name", member.parent.name)
                    return Trainer(str(crate), member, feature, where,
                                   _shown(where, workspace), *located)  # fmt: skip
    return None


def _tables_of_kind(data: Mapping[str, Any], kind: str) -> Iterator[tuple[str, Any]]:
    tables = [data.get(kind, {})]
    for target in _table(data, "target").values():
        if isinstance(target, Mapping):
            tables.append(target.get(kind, {}))
    for table in tables:
        if isinstance(table, Mapping):
            yield from table.items()


def _shown(file: Path, workspace: Path) -> str:
    try:
        return file.relative_to(workspace.parent).as_posix()
    except ValueError:
        return file.as_posix()


_HEADER = re.compile(r"^\s*\[+([^\]]*)\]")  # linear: one class up to the first `]`
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*(?:\.|=)")


def _locate(file: Path, dep: str, feature: str, kind: str | None) -> tuple[int, ...] | None:
    """(row, col, end col, start byte, end byte) of `"feature"` in `dep`'s entry of a `kind`
    dependency table of `file` (`kind` None: `[workspace.dependencies]`), by a line scan."""
    try:
        text = file.read_bytes()
    except OSError:
        return None
    quoted = f'"{feature}"'.encode()
    section, key, offset = "", "", 0
    for row, line in enumerate(text.splitlines(keepends=True)):
        header = _HEADER.match(line.decode("utf-8", "replace"))
        if header is not None:
            section, key = "".join(header.group(1).split()), ""
        elif (named := _KEY.match(line.decode("utf-8", "replace"))) is not None:
            key = named.group(1)
        col = line.find(quoted)
        if col >= 0 and _in_entry(section, key, dep, kind):
            start = offset + col
            return row, col, col + len(quoted), start, start + len(quoted)
        offset += len(line)
    return None


def _in_entry(section: str, key: str, dep: str, kind: str | None) -> bool:
    """Whether a line under `[section]`, after the key `key`, is in `dep`'s entry of a `kind`
    table (a `[target.'..'.kind]` one too; `kind` None: `[workspace.dependencies]`)."""
    if kind is None:
        table = "workspace.dependencies"
    else:
        table, section = kind, _TARGET.sub("", section)
    return section == f"{table}.{dep}" or (section == table and key == dep)


_TARGET = re.compile(r"""^target\.(?:'[^']*'|"[^"]*"|[^.'"]+)\.""")

"""Replay a `check` run's report when nothing it depended on has changed.

A warm `check` over an unchanged tree would otherwise import the engine, walk, stat, decode
cache entries and render the report again, all to print the same bytes. After a run with the
cache on, the command line, the working folder and the exact stdout, stderr and exit code are
stored under the cache folder with the list of every path the report depends on (see
`dependencies`). The next run with the same command line stats that list, and when every
stat (size, mtime, ctime, inode, device, or absence) is the same, prints the stored report.
Anything else, and any doubt, runs the check for real.

A folder's stat covers its listing (a file added, removed or renamed in it changes its mtime),
so the tree is not walked again; each `Cargo.toml` / `Cargo.lock` that could be looked for is
in the list as a file, present or absent. A run is stored only when every dependency is older
than the run's start by the stat index's racy margin, so a write during the run (or within the
same timestamp tick) can never be hidden behind an unchanged stat.

This module imports nothing heavy at load, not even json or typing: replaying must cost little
more than the stats. Runs are stored with `marshal` (the key names the interpreter version, and
the folder is the user's own cache, like Python's own bytecode caches).
"""

from __future__ import annotations

import marshal
import os
import sys

from panic_lens import cachedir

try:  # hashlib loads OpenSSL; blake2 is built in
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

FORMAT = "1"  # bump when the stored run changes shape
MAX_RUNS = 32  # stored runs kept (newest first); one per command line and folder


def runs_dir() -> str | None:
    """Where runs are stored (next to the analysis cache), or None with the cache off."""
    if cachedir.disabled():
        return None
    moved = cachedir.override()
    if moved:
        return os.path.join(moved, "runs")
    if sys.platform == "linux":  # platformdirs' answer there, without importing it
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        if not base:
            base = os.path.expanduser("~/.cache")
        return os.path.join(base, "panic-lens", "analysis-1", "runs")
    from panic_lens.cache import default_dir

    return os.path.join(default_dir(), "runs")


def run_key(argv: Sequence[str]) -> str:
    """The command line, the folder it ran in (relative paths, report paths) and the
    interpreter and package that ran it."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = (FORMAT, tuple(argv), os.getcwd(), package, sys.executable, sys.version)
    return blake2b(marshal.dumps(parts), digest_size=16).hexdigest()


def _stat_line(path: str) -> tuple[str, int]:
    """`path`'s stat as text (absent: "-") and its newest of mtime and ctime (absent: 0)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return f"{path}\0-\n", 0
    line = f"{path}\0{st.st_size},{st.st_mtime_ns},{st.st_ctime_ns},{st.st_ino},{st.st_dev}\n"
    return line, max(st.st_mtime_ns, st.st_ctime_ns)


def state_of(paths: Iterable[str]) -> str:
    """One digest of every path's stat, or of its absence."""
    return _state(paths)[0]


def _state(paths: Iterable[str]) -> tuple[str, int]:
    """The digest of `state_of` and the newest mtime or ctime seen, from one stat per path."""
    h = blake2b(digest_size=16)
    newest = 0
    for path in paths:
        line, changed = _stat_line(path)
        h.update(line.encode("utf-8", "surrogateescape"))
        newest = max(newest, changed)
    return h.hexdigest(), newest


def guard(paths: Sequence[str], record_roots: Sequence[str]) -> dict[str, str]:
    """Stats to take before a run reads anything: of paths whose removal during the run no
    stat taken after it would show, the folder holding them not being a dependency
    (`Cargo.toml` / `Cargo.lock` above the checked paths, record files named directly)."""
    folders = []
    for raw in paths:
        real = os.path.realpath(raw)
        folders.append(real if os.path.isdir(real) else os.path.dirname(real))
    probes = [*_manifest_probes(folders), *(os.path.abspath(r) for r in record_roots)]
    return {path: _stat_line(path)[0] for path in probes}


def replay(argv: Sequence[str]) -> int | None:
    """Print the stored report of `argv` and return its exit code, or None to run for real."""
    folder = runs_dir()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, f"{run_key(argv)}.run"), "rb") as fh:
            run = marshal.loads(fh.read())
        if run["format"] != FORMAT or state_of(run["deps"]) != run["state"]:
            return None
        out, err, code = run["stdout"], run["stderr"], run["exit"]
        if not (isinstance(out, str) and isinstance(err, str) and isinstance(code, int)):
            return None
    except Exception:  # missing, unreadable, truncated or foreign: run for real
        return None
    if err:
        sys.stderr.write(err)
    sys.stdout.write(out)
    return code


def record(
    argv: Sequence[str],
    deps: Sequence[str],
    *,
    started_ns: int,
    guarded: dict[str, str],
    stdout: str,
    stderr: str,
    exit_code: int,
) -> bool:
    """Store a finished run; returns False (nothing stored) when a dependency is racy (changed
    after, or within the racy margin before, `started_ns`) or a `guard` stat taken at the
    start has changed."""
    from panic_lens.cache import RACY_NS

    folder = runs_dir()
    if folder is None:
        return False
    if any(_stat_line(path)[0] != line for path, line in guarded.items()):
        return False
    deps = list(dict.fromkeys(deps))
    state, newest = _state(deps)
    if newest >= started_ns - RACY_NS:
        return False
    run = {
        "format": FORMAT,
        "deps": deps,
        "state": state,
        "stdout": stdout,
        "stderr": stderr,
        "exit": exit_code,
    }
    _write(folder, f"{run_key(argv)}.run", marshal.dumps(run))
    return True


def _write(folder: str, name: str, data: bytes) -> None:
    import contextlib
    import tempfile

    with contextlib.suppress(OSError):
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-run-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, os.path.join(folder, name))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        runs = sorted(
            (entry.stat().st_mtime_ns, entry.path)
            for entry in os.scandir(folder)
            if entry.name.endswith(".run") and not entry.name.startswith(".")
        )
        for _, old in runs[:-MAX_RUNS]:
            with contextlib.suppress(OSError):
                os.unlink(old)


# --- what a report depends on -------------------------------------------------------------


def dependencies(paths: Sequence[str], record_roots: Sequence[str]) -> list[str]:
    """Every path whose stat a `check` of `paths` (with records from `record_roots`) depends
    on: the checked trees' folders and .rs files; for each of those files' folders and each
    checked folder, `Cargo.toml` and `Cargo.lock` in it and every folder above (the crate, its
    workspace and lock, the crate digest's manifests); the workspace's member manifests and
    member folders (`rust.workspace`); each crate's `src/` tree (crate-wide
    names and constants); the record files; the rule pages (SARIF); and the code: this
    package and the tree-sitter parser."""
    from panic_lens.cache import Manifests
    from panic_lens.engine import SKIP_DIRS

    deps: list[str] = []
    folders: dict[str, None] = {}  # resolved folders whose manifests matter
    files: list[str] = []
    for raw in paths:
        root = os.path.abspath(raw)
        deps.append(root)
        if os.path.isfile(root):
            files.append(root)
            continue
        if os.path.isdir(root):
            folders[os.path.realpath(root)] = None  # the manifest of a folder argument
        for dirpath, dirnames, filenames in os.walk(root):
            deps.append(dirpath)
            dirnames[:] = sorted(d for d in dirnames if d[:1] != "." and d not in SKIP_DIRS)
            files.extend(os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(".rs"))
    deps.extend(files)
    manifests = Manifests()
    crates: dict[str, None] = {}
    for file in files:
        folders[manifests.folder_of(file)] = None
    for folder in folders:
        manifest = manifests.of_folder(folder)
        if manifest is not None:
            crates[str(manifest.parent)] = None
    deps.extend(_manifest_probes(folders))
    deps.extend(_workspace_members(crates))
    for crate in crates:
        src = os.path.join(crate, "src")
        deps.append(src)
        deps.extend(_tree(src, lambda name: name.endswith(".rs")))
    for root in record_roots:
        deps.append(os.path.abspath(root))
        deps.extend(_tree(os.path.abspath(root), lambda name: not name.startswith(".")))
    deps.extend(_code())
    return list(dict.fromkeys(deps))


def _workspace_members(crates: Iterable[str]) -> Iterator[str]:
    """For each crate in a workspace, the members' manifests and the folders the `members`
    globs list: a member that depends on the crate and trains it changes its findings."""
    from pathlib import Path

    from panic_lens.rust.workspace import watched, workspace_of

    roots = dict.fromkeys(workspace_of(Path(crate, "Cargo.toml")) for crate in crates)
    for root in roots:
        if root is not None:
            yield from (str(path) for path in watched(root))


def _manifest_probes(folders: Iterable[str]) -> Iterator[str]:
    seen: set[str] = set()
    for folder in folders:
        while folder not in seen:
            seen.add(folder)
            yield os.path.join(folder, "Cargo.toml")
            yield os.path.join(folder, "Cargo.lock")
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent


def _tree(root: str, wanted: Callable[[str], bool]) -> Iterator[str]:
    """A folder's non-hidden subfolders and wanted files, the folders first."""
    for dirpath, dirnames, filenames in os.walk(root):
        yield dirpath
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        yield from (os.path.join(dirpath, n) for n in sorted(filenames) if wanted(n))


def _code() -> Iterator[str]:
    """The package (rules, engine, reports), the rule pages and the parser's packages."""
    import tree_sitter
    import tree_sitter_rust

    from panic_lens.rules.meta import docs_root

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yield from _tree(package, lambda name: name.endswith(".py"))
    yield from _tree(str(docs_root()), lambda name: True)
    for module in (tree_sitter, tree_sitter_rust):
        if module.__file__:
            yield from _tree(os.path.dirname(module.__file__), lambda name: True)

"""Content-hash cache of per-file analyses, in the user cache folder (platformdirs).

A key covers everything a result depends on: the file's bytes and path, the rules and code
version, the settings, the crate context (manifests, lock file and the crate's sources, which
crate-wide constants are read from) and the records bound to each rule. `PANIC_LENS_NO_CACHE=1`
turns it off; `PANIC_LENS_CACHE_DIR` moves it. Writers rename into place, so readers never see
half an entry, and the folder is pruned (oldest first) above a size bound.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panic_lens import RULES_VERSION, __version__, cachedir
from panic_lens.model import (
    Analysis,
    Edit,
    Finding,
    Fix,
    HoverFact,
    Point,
    Related,
    Severity,
    Span,
)
from panic_lens.rules.meta import per_rule_set, rules
from panic_lens.walk import Listing, list_folder

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog
    from panic_lens.settings import Settings

FORMAT = "1"  # bump when the entry encoding changes
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_TYPES = {t.__name__: t for t in (Analysis, Finding, HoverFact, Span, Point, Related, Edit, Fix)}
_STALE_TEMP_SECONDS = 3600


def cache_disabled() -> bool:
    return cachedir.disabled()


def default_dir() -> Path:
    """PANIC_LENS_CACHE_DIR itself when set, else a folder per format in the cache folder."""
    moved = cachedir.override()
    return Path(moved) if moved else cachedir.root() / f"analysis-{FORMAT}"


# --- keys ---------------------------------------------------------------------------------


def digest(data: bytes) -> str:
    return _blake2b()(data, digest_size=16).hexdigest()


def _blake2b() -> Any:
    """hashlib's blake2b, from its own module when there is one: `hashlib` loads OpenSSL
    first (a run without the cache loads neither)."""
    global _BLAKE2B
    if _BLAKE2B is None:
        try:
            from _blake2 import blake2b
        except ImportError:  # an interpreter built without it: hashlib finds one
            from hashlib import blake2b
        _BLAKE2B = blake2b
    return _BLAKE2B


_BLAKE2B: Any = None


# The package's files an analysis depends on besides its rule files (each rule's fingerprint,
# the hash of its file, is in the key already): its code and burn's indexes and tables.
_CODE_SUFFIXES = (".py", ".json", ".gz", ".ops.toml", ".structs.toml")


@per_rule_set
def code_fingerprint() -> str:
    """Version, rules version, the registered rules and the package's own files (size,
    mtime): a changed or added rule must not be answered from entries the old code wrote."""
    root = os.path.dirname(os.path.realpath(__file__))
    parts = [__version__, RULES_VERSION, FORMAT, *(r.fingerprint for r in rules())]
    for folder, dirnames, filenames in os.walk(root):  # os.walk: Path.rglob is slower
        dirnames.sort()
        for name in sorted(f for f in filenames if f.endswith(_CODE_SUFFIXES)):
            file = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                st = os.stat(file)
                parts.append(f"{os.path.relpath(file, root)}:{st.st_size}:{st.st_mtime_ns}")
    return digest("\n".join(parts).encode())


def records_fingerprint(catalog: Catalog | None) -> str:
    """The records themselves: what a finding takes from the catalog (the ids bound to its
    rule) is a function of the records and the rules, and the rules are in the code
    fingerprint. Binding every record to every rule to key a warm run cost more than the
    rest of the run."""
    if catalog is None:
        return "no-catalog"
    return digest(repr([(r.id, r.panic, r.knowledge) for r in catalog.records]).encode())


class Manifests:
    """`rust.crate.find_manifest` for many files: each folder is resolved once (a file only
    when it is itself a symlink) and every folder climbed remembers the Cargo.toml it led to
    (thousands of files share a few dozen crates)."""

    def __init__(
        self,
        is_link: Callable[[str], bool] = os.path.islink,
        absolute: Callable[[str], str] = os.path.abspath,
    ) -> None:
        self._found: dict[str, Path | None] = {}  # resolved folder -> its crate's Cargo.toml
        self._real: dict[str, str] = {}  # absolute folder -> resolved
        self._files: dict[str, str] = {}  # file as given -> resolved folder
        self._is_link = is_link  # a caller that has lstat'ed the files knows
        self._absolute = absolute  # and may have made their paths absolute already

    def of(self, path: str | os.PathLike[str]) -> Path | None:
        """The Cargo.toml governing the file `path`."""
        return self.of_folder(self.folder_of(path))

    def folder_of(self, path: str | os.PathLike[str]) -> str:
        """The resolved folder of the file `path` (where its manifest is looked for)."""
        path = os.fspath(path)
        known = self._files.get(path)
        if known is not None:
            return known
        if self._is_link(path):
            folder = os.path.dirname(os.path.realpath(path))
        else:
            folder = self._realpath(os.path.dirname(self._absolute(path)))
        self._files[path] = folder
        return folder

    def _realpath(self, folder: str) -> str:
        """`os.path.realpath` of the absolute, normalised `folder`, from its parent's: one
        lstat per folder instead of one per component of each."""
        known = self._real.get(folder)
        if known is not None:
            return known
        parent, name = os.path.split(folder)
        if not name or parent == folder:  # the root
            resolved = os.path.realpath(folder)
        else:
            try:
                link = stat.S_ISLNK(os.lstat(folder).st_mode)
            except OSError:
                link = False  # realpath leaves a missing component as it is
            resolved = (
                os.path.realpath(folder) if link else os.path.join(self._realpath(parent), name)
            )
        self._real[folder] = resolved
        return resolved

    def of_folder(self, folder: str) -> Path | None:
        """The nearest Cargo.toml at or above the resolved `folder`."""
        climbed: list[str] = []
        found: Path | None = None
        while True:
            if folder in self._found:
                found = self._found[folder]
                break
            climbed.append(folder)
            if os.path.isfile(os.path.join(folder, "Cargo.toml")):
                found = Path(folder) / "Cargo.toml"
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        for seen in climbed:
            self._found[seen] = found
        return found


class CrateDigests:
    """Digest of each crate's context, memoised per manifest for one run.

    Covers every Cargo.toml and Cargo.lock from the crate folder up (workspace root and lock
    included), the workspace members' manifests (a member that depends on the crate may train
    it) and every .rs file under the crate's `src/`. `file_digest` lets a caller that
    has already read a file reuse its digest. Which manifest is the workspace root, and its
    member patterns, are read from each manifest's bytes (`manifest_facts`); with `index`
    those facts are remembered by the bytes' digest, so a warm run parses no manifest.
    """

    def __init__(
        self,
        file_digest: Callable[[str], str | None] | None = None,
        manifests: Manifests | None = None,
        index: StatIndex | None = None,
        listings: Mapping[str, Listing] | None = None,
    ) -> None:
        self._memo: dict[Path, str] = {}
        self._listings = listings if listings is not None else {}  # the walk's, by folder
        self._manifests = manifests if manifests is not None else Manifests()
        self._file_digest = file_digest or read_digest
        self._index = index
        # Cargo.toml / Cargo.lock -> (digest part or None when absent, workspace facts)
        self._read: dict[str, tuple[str | None, ManifestFacts | None]] = {}
        self._member_parts: dict[str, list[str]] = {}  # per workspace root

    def for_path(self, path: str | os.PathLike[str] | None) -> str:
        if path is None:
            return "no-crate"
        manifest = self._manifests.of(path)
        if manifest is None:
            return "no-crate"
        if manifest not in self._memo:
            self._memo[manifest] = self._compute(manifest)
        return self._memo[manifest]

    def _manifest(self, folder: str) -> Path | None:
        return self._manifests.of_folder(folder)

    def _compute(self, manifest: Path) -> str:
        parts: list[str] = []
        workspace: str | None = None
        folder = crate = os.path.dirname(manifest)  # str: Path costs here, once per folder
        while True:
            for name in ("Cargo.toml", "Cargo.lock"):
                part, facts = self._read_manifest(os.path.join(folder, name))
                if part is not None:
                    parts.append(part)
                if workspace is None and facts is not None and facts[0]:
                    workspace = os.path.join(folder, name)  # the nearest declaring [workspace]
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        if workspace is not None:
            parts.extend(self._members(workspace))
        file_digest = self._file_digest
        for file in self._rust_files(os.path.join(crate, "src")):
            parts.append(f"{file}={file_digest(file)}")
        return digest("\n".join(parts).encode())

    def _rust_files(self, top: str) -> list[str]:
        """The .rs files under `top` in `os.walk`'s order, hidden folders left out: folders
        the run's walk listed are not listed again."""
        found: list[str] = []
        stack = [top]
        while stack:
            folder = stack.pop()
            listed = self._listings.get(folder) or list_folder(folder)
            if listed is None:
                continue
            found.extend(os.path.join(folder, name) for name in listed[0])
            stack.extend(os.path.join(folder, name) for name in reversed(listed[1]))
        return found

    def _read_manifest(self, path: str) -> tuple[str | None, ManifestFacts | None]:
        """`path`'s digest part (None when it is not a file) and, for a Cargo.toml, its
        workspace facts, read once per run."""
        known = self._read.get(path)
        if known is not None:
            return known
        data: bytes | None
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:  # absent (or unreadable: then read as empty, as rust.manifests does)
            data = b"" if os.path.isfile(path) else None
        if data is None:
            known = (None, None)
        else:
            data_digest = digest(data)
            facts = None
            if os.path.basename(path) == "Cargo.toml":
                facts = self._index.manifest_facts(data_digest) if self._index else None
                if facts is None:
                    facts = manifest_facts(data)
                    if self._index is not None:
                        self._index.record_manifest_facts(data_digest, facts)
            known = (f"{path}={data_digest}", facts)
        self._read[path] = known
        return known

    def _members(self, workspace: str) -> list[str]:
        """The workspace's member manifests, as found now: which members depend on this crate
        and train it (`rust.workspace`) is read from them."""
        if workspace not in self._member_parts:
            from panic_lens.rust.manifests import members_of

            facts = self._read_manifest(workspace)[1]
            assert facts is not None  # a root is a Cargo.toml that was read
            parts = []
            found = members_of(Path(workspace), facts[1], list(facts[2]), list(facts[3]))
            for path in found:
                part = self._read_manifest(str(path))[0]
                parts.append(f"member {part if part is not None else f'{path}=None'}")
            self._member_parts[workspace] = parts
        return self._member_parts[workspace]


# What a Cargo.toml says about its workspace: whether it declares one (`"workspace" in` the
# parsed table: the root `rust.manifests.workspace_root` finds) and the root's
# `rust.workspace.member_fields` (package, members, exclude).
ManifestFacts = tuple[bool, bool, tuple[str, ...], tuple[str, ...]]


def manifest_facts(data: bytes) -> ManifestFacts:
    """The workspace facts of a Cargo.toml's bytes, parsed as `rust.manifests.read_toml` parses
    the file (text mode: universal newlines; an unreadable manifest reads as empty)."""
    import tomllib

    from panic_lens.rust.manifests import member_fields

    try:
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        parsed = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        parsed = {}
    package, members, exclude = member_fields(parsed)
    return "workspace" in parsed, package, tuple(members), tuple(exclude)


def read_digest(path: str | os.PathLike[str]) -> str | None:
    try:
        with open(path, "rb") as fh:
            return digest(fh.read())
    except OSError:
        return None


def entry_key(
    src: bytes, path: str | None, *, settings: Settings | None, crate: str, records: str
) -> str:
    return key_for_digest(digest(src), path, settings=settings, crate=crate, records=records)


def key_for_digest(
    src_digest: str, path: str | None, *, settings: Settings | None, crate: str, records: str
) -> str:
    """`entry_key` from the digest of the source (the stat index knows it without reading)."""
    settings_key = settings.cache_key() if settings is not None else "defaults"
    parts = (src_digest, path or "<text>", code_fingerprint(), settings_key, crate, records)
    return digest("\0".join(parts).encode())


# --- the store ------------------------------------------------------------------------------


class AnalysisCache:
    """Entries are JSON files named by key under `root`, two hex digits per subfolder."""

    def __init__(self, root: Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = root if root is not None else default_dir()
        self.max_bytes = max_bytes
        self.writes = 0

    @classmethod
    def from_env(cls) -> AnalysisCache | None:
        """The user's cache, or None when PANIC_LENS_NO_CACHE is set."""
        return None if cache_disabled() else cls()

    def stat_index(self) -> StatIndex:
        return StatIndex(self.root / "stat-index.json")

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key[2:]}.json"

    def get(self, key: str) -> Analysis | None:
        """The stored analysis, or None (missing, unreadable or from another encoding)."""
        value = self._read(key, decode)
        return value if isinstance(value, Analysis) else None

    def get_reported(self, key: str) -> Analysis | None:
        """The findings and notes of the stored analysis (all `check` reports); hovers, if the
        entry has any, are left out undecoded."""
        value = self._read(key, _decode_reported)
        return value if isinstance(value, Analysis) else None

    def _read(self, key: str, convert: Callable[[Any], Any]) -> Any:
        file = self._file(key)
        try:
            value = convert(json.loads(file.read_bytes()))
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            return None
        with contextlib.suppress(OSError):
            os.utime(file)  # pruning drops the least recently used entries first
        return value

    def put(self, key: str, analysis: Analysis) -> None:
        """Write atomically: a temporary file in the same folder, then rename over the entry."""
        file = self._file(key)
        data = json.dumps(encode(analysis), separators=(",", ":")).encode()
        with contextlib.suppress(OSError):
            _write_atomically(file, data, ".tmp-", ".json")
            self.writes += 1

    def prune(self) -> int:
        """Delete the least recently used entries while the folder is above `max_bytes`;
        returns how many files were removed. Stale temporary files always go."""
        entries, total, removed = [], 0, 0
        now = time.time()
        for file in self.root.glob("??/*.json"):
            with contextlib.suppress(OSError):
                st = file.stat()
                if file.name.startswith(".tmp-"):  # another writer's, unless long abandoned
                    if now - st.st_mtime > _STALE_TEMP_SECONDS:
                        file.unlink()
                        removed += 1
                    continue
                entries.append((st.st_mtime, st.st_size, file))
                total += st.st_size
        entries.sort()
        for _, size, file in entries:
            if total <= self.max_bytes * 3 // 4:
                break
            with contextlib.suppress(OSError):
                file.unlink()
                removed += 1
            total -= size
        return removed


# --- stat index: digests and prefilter verdicts of files whose stat has not changed -----------

# A file whose mtime or ctime is this close to the moment it was stat'ed could still change
# within the same timestamp tick without its stat changing ("racy" entries): never index those.
RACY_NS = 2_000_000_000
MAX_INDEX_ENTRIES = 200_000
MAX_MANIFEST_FACTS = 10_000
StatKey = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


class StatIndex:
    """path -> (stat, content digest, prefilter verdict and the context it was taken in); and
    manifest digest -> its workspace facts (`ManifestFacts`: a function of the bytes alone).

    ctime is in the key, so a rewrite that restores size and mtime still shows (only the
    kernel sets ctime). The index is advisory: any entry whose stat differs is ignored.
    """

    def __init__(self, file: Path) -> None:
        self.file = file
        self.entries: dict[str, list[Any]] = {}
        self.manifests: dict[str, list[Any]] = {}  # manifest digest -> its ManifestFacts
        self._load()
        self.changed = False

    def _load(self) -> None:
        try:
            data = json.loads(self.file.read_bytes())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return
        for name in ("files", "manifests"):
            if isinstance(data.get(name), dict):
                setattr(self, "entries" if name == "files" else name, data[name])

    def manifest_facts(self, manifest_digest: str) -> ManifestFacts | None:
        """The facts remembered for a Cargo.toml with these bytes (None: not known)."""
        entry = self.manifests.get(manifest_digest)
        if not (isinstance(entry, list) and len(entry) == 4):
            return None
        declares, package, members, exclude = entry
        lists = (members, exclude)
        if not (isinstance(declares, bool) and isinstance(package, bool)) or not all(
            isinstance(v, list) and all(isinstance(s, str) for s in v) for v in lists
        ):
            return None
        return declares, package, tuple(members), tuple(exclude)

    def record_manifest_facts(self, manifest_digest: str, facts: ManifestFacts) -> None:
        self.manifests[manifest_digest] = [facts[0], facts[1], list(facts[2]), list(facts[3])]
        self.changed = True

    def lookup(self, path: str, key: StatKey) -> list[Any] | None:
        """[digest, verdict context, verdict] when `path`'s stat still matches, else None."""
        entry = self.entries.get(path)
        if not isinstance(entry, list) or len(entry) != 4 or tuple(entry[0]) != key:
            return None
        return entry[1:]

    def record(self, path: str, key: StatKey, file_digest: str, stat_time_ns: int) -> None:
        """Remember a digest read after stat'ing at `stat_time_ns` (unless racy)."""
        if max(key[1], key[2]) >= stat_time_ns - RACY_NS:
            self.entries.pop(path, None)
            return
        self.entries[path] = [list(key), file_digest, "", False]
        self.changed = True

    def set_verdict(self, path: str, key: StatKey, context: str, keeps: bool) -> None:
        entry = self.entries.get(path)
        fits = isinstance(entry, list) and len(entry) == 4 and tuple(entry[0]) == key
        if fits and entry is not None and entry[2:] != [context, keeps]:
            entry[2:] = [context, keeps]
            self.changed = True

    def save(self) -> None:
        """Atomically replace the index file; entries beyond the bound are dropped."""
        if not self.changed:
            return
        files = dict(list(self.entries.items())[-MAX_INDEX_ENTRIES:])
        manifests = dict(list(self.manifests.items())[-MAX_MANIFEST_FACTS:])
        index = {"format": FORMAT, "files": files, "manifests": manifests}
        data = json.dumps(index, separators=(",", ":")).encode()
        with contextlib.suppress(OSError):
            _write_atomically(self.file, data, ".tmp-idx-")


def _write_atomically(file: Path, data: bytes, prefix: str, suffix: str = "") -> None:
    """Write `data` to a temporary file in `file`'s folder (made if missing), then rename it
    over `file`; the temporary file is removed if that fails."""
    import tempfile  # here: a warm run writes nothing

    file.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, file)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# --- encoding: exact round trips of the result types -----------------------------------------


def encode(value: Any) -> Any:
    """Dataclasses as {"t": name, "v": [fields]}, Severity as {"s": ..}, lists as {"l": ..};
    tuples become JSON arrays, so decoding gives back equal objects."""
    if isinstance(value, Severity):
        return {"s": value.value}
    if is_dataclass(value) and not isinstance(value, type):
        return {
            "t": type(value).__name__,
            "v": [encode(getattr(value, f.name)) for f in fields(value)],
        }
    if isinstance(value, tuple):
        return [encode(v) for v in value]
    if isinstance(value, list):
        return {"l": [encode(v) for v in value]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode_reported(raw: Any) -> Analysis | None:
    if not isinstance(raw, dict) or raw.get("t") != "Analysis":
        return None
    found, notes = decode(raw["v"][0]), decode(raw["v"][2])
    if not all(isinstance(f, Finding) for f in found) or not all(isinstance(n, str) for n in notes):
        return None
    return Analysis(found, (), notes)


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if isinstance(value, dict):
        if "s" in value:
            return Severity(value["s"])
        if "l" in value:
            return [decode(v) for v in value["l"]]
        return _TYPES[value["t"]](*(decode(v) for v in value["v"]))
    return value

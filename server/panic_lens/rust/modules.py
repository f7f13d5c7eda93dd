"""A crate's module files: where a file sits in its crate, and the names of its sibling modules.

`crate::x::Y`, `super::Y` and `mod x;` name items of other files. The loader reads those files
(parsed once, cached by modification time) so `use crate::prelude::*` resolves like rustc does.
They are parsed as the analysis parses a file (`syntax.parse_code`): a module file that is then
analysed itself reuses the tree (`parsed`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from panic_lens.rust.lexical import WORD_BYTES
from panic_lens.rust.names import Imports, ModuleLoader
from panic_lens.rust.syntax import Tree, parse_code

_MAX_CACHED = 512
_cache: dict[Path, tuple[int, Imports, Tree]] = {}  # by file: its stamp, names and tree


def module_path(file: Path, src_root: Path) -> tuple[str, ...] | None:
    """`src/lib.rs` -> (), `src/a/mod.rs` -> ("a",), `src/a/b.rs` -> ("a", "b"); None outside."""
    return module_path_resolved(file.resolve(), src_root.resolve())


def module_path_resolved(file: Path, src_root: Path) -> tuple[str, ...] | None:
    """`module_path` of a file and a root already resolved."""
    try:
        parts = file.relative_to(src_root).parts
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
    return _Loader(src_root)


class _Loader:
    """`loader_for`'s loader. An object, not a closure: a closure that passes itself on refers
    to itself through its cell, a cycle that left every analysis's loader to the collector."""

    __slots__ = ("_src_root",)

    def __init__(self, src_root: Path) -> None:
        self._src_root = src_root

    def __call__(self, path: tuple[str, ...]) -> Imports | None:
        for file in module_files(self._src_root, path):
            try:  # one stat says whether the file is there and when it changed
                found = os.stat(file)
            except OSError:
                continue
            if stat.S_ISREG(found.st_mode):
                return _imports_of(file, found.st_mtime_ns, path, self)
        return None


@lru_cache(maxsize=4096)
def module_files(src_root: Path, path: tuple[str, ...]) -> tuple[Path, Path]:
    """Where the module at `path` can be, in order (`a.rs`, `a/mod.rs`; `lib.rs`, `main.rs`
    for the crate's root): the names only, built once (the loader is asked again and again)."""
    if not path:
        return src_root / "lib.rs", src_root / "main.rs"
    base = src_root.joinpath(*path)
    return base.with_suffix(".rs"), base / "mod.rs"


def _imports_of(
    file: Path, stamp: int, path: tuple[str, ...], load: ModuleLoader
) -> Imports | None:
    cached = _cache.get(file)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        src = file.read_bytes()
    except OSError:
        return None
    tree = _analysed_tree(file, src) or parse_code(src)
    imports = Imports.module_level(tree, src, module_path=path, loader=load)
    if len(_cache) >= _MAX_CACHED:
        _cache.pop(next(iter(_cache)))
    _cache[file] = (stamp, imports, tree)  # (the tree is alive anyway: the Imports hold nodes)
    return imports


# The trees of the last files analysed (`remember`), by absolute path: the loader reads one of
# them without parsing it again (a crate's `mod.rs` is analysed, then its children load it).
_analysed: dict[str, tuple[bytes, Tree]] = {}
_kept = [0]  # how many: none unless a batch run asks (a language server keeps its own trees)


def keep_analysed(count: int) -> int:
    """Keep the trees of the last `count` files analysed for the loader (`remember`), the
    previous count returned: a `check` run's analyses ask for their siblings' module scopes."""
    before, _kept[0] = _kept[0], count
    while len(_analysed) > count:
        _analysed.pop(next(iter(_analysed)))
    return before


def remember(path: str, src: bytes, tree: Tree) -> None:
    """Keep the tree of a file just analysed for the loader (the last few only)."""
    if not _kept[0]:
        return
    file = os.path.abspath(path)
    _analysed.pop(file, None)
    _analysed[file] = (src, tree)
    if len(_analysed) > _kept[0]:
        _analysed.pop(next(iter(_analysed)))


def _analysed_tree(file: Path, src: bytes) -> Tree | None:
    found = _analysed.get(os.path.abspath(file))
    return found[1] if found is not None and found[0] == src else None


def parsed(path: str, src: bytes) -> Tree | None:
    """The tree the loader parsed of the module file at `path`, when it read these very bytes
    (a file of the crate that an analysis asks about after another file's analysis loaded
    it); else None."""
    for file in (Path(path), Path(os.path.abspath(path))):
        cached = _cache.get(file)
        if cached is not None and cached[1].src == src:
            return cached[2]
    return None


# A `use` keyword (the byte before it checked by hand: a literal first keeps `re` fast), the
# things that end or interrupt its statement, and the renames inside it.
_USE = re.compile(rb"use\b")
_STATEMENT_STOP = re.compile(rb";|//|/\*")
_AS_NAME = re.compile(rb"\bas\s+([A-Za-z_][A-Za-z0-9_]*)")


def use_renames(src: bytes) -> frozenset[str]:
    """A superset of the names `use .. as NAME` binds in `src`, found without parsing: every
    identifier after `as` in a `use` statement, read up to its `;` with comments skipped (a
    `;` in a comment does not end it, a comment between `as` and the name is passed over).
    `use` and `as` in comments and strings only add names. `extern crate x as y` is left out: a
    crate alias only ever stands first in a path."""
    found: set[str] = set()
    read_to = 0  # a `use` before this is inside the statement read last: its names are found
    for match in _USE.finditer(src):
        if match.start() < read_to:
            continue
        if match.start() > 0 and src[match.start() - 1] in WORD_BYTES:
            continue  # `reuse`, `r#use`..: not the keyword
        if _in_line_comment(src, match.start()):
            continue  # `/// .. to use Vulkan as the graphics API`
        read_to, code = _statement(src, match.end())
        # the names in the comments too: error recovery may read a comment's text as code
        names = _AS_NAME.findall(code) + _AS_NAME.findall(src, match.end(), read_to)
        found.update(name.decode() for name in names)
    found.discard("_")  # `use Trait as _` binds no name
    return frozenset(found)


def _in_line_comment(src: bytes, at: int) -> bool:
    """`at` is on a line that starts with `//` and has no `"` before `at`: a comment, unless
    a string opened on an earlier line holds that `//`, and such a string would close (with a
    `"`) before code could follow on the same line."""
    head = src[src.rfind(b"\n", 0, at) + 1 : at]
    return head.lstrip().startswith(b"//") and b'"' not in head


def _statement(src: bytes, at: int) -> tuple[int, bytes]:
    """Where the statement that goes on at `at` ends (its `;`, comments skipped: block
    comments nest in Rust, or the end of the text) and its text with each comment a space."""
    code = []
    while True:
        stop = _STATEMENT_STOP.search(src, at)
        if stop is None:
            code.append(src[at:])
            return len(src), b"".join(code)
        code.append(src[at : stop.start()])
        if stop.group() == b";":
            return stop.start(), b"".join(code)
        code.append(b" ")
        if stop.group() == b"//":
            newline = src.find(b"\n", stop.end())
            if newline < 0:
                return len(src), b"".join(code)
            at = newline
            continue
        end = block_comment_end(src, stop.end())
        at = len(src) if end < 0 else end  # never closed: the comment runs to the end


def block_comment_end(src: bytes, at: int) -> int:
    """Past the `*/` that closes the block comment whose `/*` ends at `at` (block comments
    nest in Rust); -1 when it is never closed."""
    depth = 1
    while depth:
        opens, closes = src.find(b"/*", at), src.find(b"*/", at)
        if closes < 0:
            return -1
        if 0 <= opens < closes:
            depth, at = depth + 1, opens + 2
        else:
            depth, at = depth - 1, closes + 2
    return at


class RenameIndex:
    """The names `use .. as NAME` can bind where a file's names resolve: the file itself and,
    for a module of a crate's `src/` tree, every file the module loader may read there.

    A resolved path ends in a different name than written only through such a rename, which
    lets `CallSite.resolves_to` skip resolving calls that cannot be a rule's. One index lives
    for one `check` run (crate sources are read once, never re-read: a long-lived process
    must not keep one across edits)."""

    def __init__(self, read: Callable[[str], bytes] | None = None) -> None:
        """`read` gives a file's bytes (raising OSError like a read): a run that read the
        crate's sources already passes its store."""
        self._crates: dict[Path, frozenset[str]] = {}
        self.read = read or _read_bytes

    def for_file(self, src: bytes, src_root: Path | None) -> frozenset[str]:
        """`src`'s own renames, plus its crate's when the file is a module of `src_root`."""
        own = use_renames(src)
        if src_root is None:
            return own
        if src_root not in self._crates:
            self._crates[src_root] = _crate_renames(src_root, self.read)
        return own | self._crates[src_root]


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _crate_renames(src_root: Path, read: Callable[[str], bytes]) -> frozenset[str]:
    """`use_renames` of every `.rs` file under `src_root`, symlinked folders included (the
    loader follows them too)."""
    found: set[str] = set()
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(src_root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:  # a symlink cycle
            dirnames[:] = []
            continue
        seen.add(real)
        for name in filenames:
            if name.endswith(".rs"):
                try:
                    found.update(use_renames(read(os.path.join(dirpath, name))))
                except OSError:
                    continue  # unreadable: the loader cannot read it either
    return frozenset(found)

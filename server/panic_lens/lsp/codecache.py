"""attrs' and cattrs' generated functions, compiled once and kept between server starts.

lsprotocol.types defines ~560 attrs classes. For each one attrs writes `__init__`, `__eq__`,
`__repr__` and friends as Python source and compiles it while the module is imported, a
large part of the server's start. cattrs does the same for the (un)structure functions of each
message type, the first time a message of that type is read or sent, before the first
diagnostics (bench/RESULTS.md has the figures). The same source always compiles to the same
code object, so the code objects are marshalled to one file in the user cache folder, and the
next start looks each one up by a hash of what `compile` was given (source, filename, mode,
flags) instead.

Only the name `compile` inside `attr._make`, `cattrs.gen` and `cattrs.gen.typeddicts` is
replaced (they call the builtin through it). Anything unexpected (another attrs or cattrs
layout, a missing, unreadable or corrupt file, another Python) means compiling as before;
PANIC_LENS_NO_CACHE=1 turns the cache off.
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import hashlib
import importlib.util
import logging
import marshal
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from panic_lens import cachedir

logger = logging.getLogger(__name__)


class CodeCache:
    """The code objects of one file, and the ones compiled or used since it was read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stored: dict[bytes, CodeType] = _read(path)
        self.used: dict[bytes, CodeType] = {}
        self.compiled = 0

    def compiler_for(self, module: ModuleType) -> Callable[..., Any]:
        """`builtins.compile` as called from `module`, through the cache: a plain `compile`
        there inherits the module's `from __future__` flags, so the cached one adds them."""
        inherited = _future_flags(module)

        def compile(  # stands in for the builtin inside `module`
            source: Any,
            filename: Any,
            mode: str,
            flags: int = 0,
            dont_inherit: bool = False,
            optimize: int = -1,
        ) -> Any:
            if not dont_inherit:
                flags |= inherited
            return self.compile(source, filename, mode, flags, optimize)

        return compile

    def compile(self, source: Any, filename: Any, mode: str, flags: int, optimize: int) -> Any:
        if not isinstance(source, str) or not isinstance(filename, str):
            return builtins.compile(source, filename, mode, flags, True, optimize)
        key = _key(source, filename, mode, flags, optimize)
        code = self.stored.get(key)
        if code is None:
            code = builtins.compile(source, filename, mode, flags, True, optimize)
            self.compiled += 1
        self.used[key] = code
        return code

    def save(self) -> None:
        """Write the code objects used in this process when many were missing from the file
        (first start, another attrs or lsprotocol). Not for a handful: attrs puts a per-process
        hash seed into the source of a frozen class's `__hash__`, so one or two methods are
        compiled at every start, and rewriting a megabyte for them would cost more."""
        if self.compiled <= len(self.used) // 20:
            return
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".lsp-code-")
            with os.fdopen(fd, "wb") as out:
                marshal.dump(self.used, out)
            os.replace(tmp, self.path)  # atomic: servers starting at once read whole files
        except (OSError, ValueError) as exc:
            logger.info("could not save compiled attrs methods: %s", exc)
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            return
        self.stored = dict(self.used)
        self.compiled = 0


_installed: CodeCache | None = None


def install() -> CodeCache | None:
    """Route attrs' and cattrs' `compile` through the cache; call before lsprotocol is
    imported (attrs compiles while it defines its classes; cattrs only once messages flow)."""
    global _installed
    if _installed is not None or _disabled():
        return _installed
    try:
        from attr import _make
    except ImportError:
        return None
    if not _compiles_through_name(_make, "_compile_and_eval"):
        return None  # not the attrs layout this was written for: leave it alone
    cache = CodeCache(_path())
    _make.compile = cache.compiler_for(_make)  # type: ignore[attr-defined]
    try:
        import cattrs.gen
        import cattrs.gen.typeddicts
    except ImportError:
        pass
    else:
        for module in (cattrs.gen, cattrs.gen.typeddicts):
            if _compiles_through_name(module):
                module.compile = cache.compiler_for(module)  # type: ignore[attr-defined]
    _installed = cache
    return cache


def _compiles_through_name(module: ModuleType, function: str | None = None) -> bool:
    """`module.function` (or any function of `module`) calls `compile` by its global name,
    which nothing has taken yet."""
    if "compile" in vars(module):
        return False
    names = [function] if function else [n for n, v in vars(module).items() if callable(v)]
    for name in names:
        code = getattr(getattr(module, name, None), "__code__", None)
        if code is not None and code.co_filename == module.__file__ and "compile" in code.co_names:
            return True
    return False


def save() -> None:
    """Keep what this process compiled for the next start (the server calls it once ready)."""
    if _installed is not None:
        _installed.save()


def _disabled() -> bool:
    return cachedir.disabled()


def _path() -> Path:
    """One file per Python bytecode format, in the cache folder panic-lens check uses."""
    magic = importlib.util.MAGIC_NUMBER.hex()
    return cachedir.root() / f"lsp-code-{sys.implementation.cache_tag}-{magic}.marshal"


def _read(path: Path) -> dict[bytes, CodeType]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    try:
        table = marshal.loads(data)
    except (EOFError, ValueError, TypeError) as exc:
        logger.info("ignoring unreadable %s: %s", path, exc)
        return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, bytes) and isinstance(v, CodeType)}


def _key(source: str, filename: str, mode: str, flags: int, optimize: int) -> bytes:
    digest = hashlib.blake2b(f"{filename}\0{mode}\0{flags}\0{optimize}\0".encode(), digest_size=20)
    digest.update(source.encode("utf-8", "surrogatepass"))
    return digest.digest()


def _future_flags(module: ModuleType) -> int:
    """The compiler flags of the `from __future__` imports in `module`."""
    names = vars(module)
    flags = 0
    for name in __future__.all_feature_names:
        feature = getattr(__future__, name)
        if names.get(name) is feature:
            flags |= int(getattr(feature, "compiler_flag", 0))
    return flags

"""The code cache gives exactly the code objects attrs and cattrs compile themselves.

Each check runs in a fresh interpreter: lsprotocol's classes are built once per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Every attrs-generated method of every lsprotocol class, as marshalled bytes: equal digests
# mean equal code objects (bytecode, constants, names, flags, file name).
PROBE = """
import hashlib, json, marshal
import attrs
import panic_lens.lsp
from panic_lens.lsp import codecache
import lsprotocol.types as T

digest, count = hashlib.sha256(), 0
for name in sorted(dir(T)):
    cls = getattr(T, name)
    if isinstance(cls, type) and attrs.has(cls):
        for method, value in sorted(vars(cls).items()):
            code = getattr(value, "__code__", None)
            if code is not None and code.co_filename.startswith("<attrs generated"):
                digest.update(method.encode() + marshal.dumps(code))
                count += 1
# cattrs compiles (un)structure functions when a message type is first read or sent
import gc
from pygls.protocol import default_converter
converter = default_converter()
init = converter.structure(
    {"processId": 1, "rootUri": "file:///w", "capabilities": {"textDocument": {
        "publishDiagnostics": {"versionSupport": True}}}}, T.InitializeParams)
diagnostic = T.Diagnostic(T.Range(T.Position(0, 1), T.Position(0, 4)), "m", code="r")
sent = converter.unstructure(
    T.PublishDiagnosticsParams("file:///w/a.rs", [diagnostic], version=3))
def canon(code):  # marshal's bytes depend on reference counts here: compare the fields
    if not hasattr(code, "co_code"):
        return repr(code)
    return repr((code.co_code, tuple(canon(c) for c in code.co_consts), code.co_names,
                 code.co_varnames, code.co_freevars, code.co_cellvars, code.co_flags,
                 code.co_filename, code.co_qualname, code.co_firstlineno, code.co_linetable,
                 code.co_exceptiontable, code.co_argcount, code.co_kwonlyargcount))
generated = sorted(
    (f.__code__.co_filename, f.__name__, canon(f.__code__))
    for f in gc.get_objects()
    if callable(f) and getattr(f, "__code__", None) is not None
    and f.__code__.co_filename.startswith("<cattrs generated")
)
cattrs_digest = hashlib.sha256("".join(n + c for _, n, c in generated).encode()).hexdigest()
cache = codecache._installed
print(json.dumps({
    "digest": digest.hexdigest(), "count": count,
    "cattrs_digest": cattrs_digest, "cattrs_count": len(generated),
    "messages": [init.capabilities.text_document.publish_diagnostics.version_support, sent],
    "compiled": cache.compiled if cache else None,
    "stored": len(cache.stored) if cache else None,
    "used": len(cache.used) if cache else None,
    "cattrs_used": sum(
        1 for c in cache.used.values() if c.co_filename.startswith("<cattrs generated")
    ) if cache else None,
    "cattrs_from_file": sum(
        1 for k, c in cache.used.items()
        if c.co_filename.startswith("<cattrs generated") and k in cache.stored
    ) if cache else None,
    "equal": T.Position(1, 2) == T.Position(1, 2) and T.Position(1, 2) != T.Position(1, 3),
}))
codecache.save()
"""


def probe(cache_dir: Path, *, off: bool = False) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PANIC_LENS_NO_CACHE"}
    env["PANIC_LENS_CACHE_DIR"] = str(cache_dir)
    if off:
        env["PANIC_LENS_NO_CACHE"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


def test_cached_code_objects_equal_compiled_ones(tmp_path: Path) -> None:
    plain = probe(tmp_path / "off", off=True)
    assert plain["compiled"] is None and plain["equal"] is True
    assert not (tmp_path / "off").exists()

    filling = probe(tmp_path)  # one compile per class (all its methods in one script)
    assert filling["digest"] == plain["digest"] and filling["count"] == plain["count"]
    assert filling["stored"] == 0 and isinstance(filling["compiled"], int)
    assert filling["compiled"] > 500
    assert len(list(tmp_path.glob("lsp-code-*.marshal"))) == 1

    cached = probe(tmp_path)
    assert cached["digest"] == plain["digest"] and cached["equal"] is True
    assert cached["cattrs_digest"] == plain["cattrs_digest"]
    assert cached["messages"] == plain["messages"]
    assert cached["stored"] == filling["used"]
    assert isinstance(cached["compiled"], int) and cached["compiled"] <= 2  # per-process seeds


def test_cattrs_functions_are_cached_too(tmp_path: Path) -> None:
    """Reading an InitializeParams and sending a publishDiagnostics make cattrs compile its
    functions; a second start finds them all in the file, equal to compiled ones."""
    plain = probe(tmp_path / "off", off=True)
    assert isinstance(plain["cattrs_count"], int) and plain["cattrs_count"] > 10
    filling = probe(tmp_path)
    assert filling["cattrs_from_file"] == 0
    cached = probe(tmp_path)
    assert cached["cattrs_digest"] == plain["cattrs_digest"]
    assert cached["cattrs_count"] == plain["cattrs_count"]
    assert isinstance(cached["cattrs_used"], int) and cached["cattrs_used"] > 5
    assert cached["cattrs_from_file"] == cached["cattrs_used"] == filling["cattrs_used"]
    assert isinstance(cached["compiled"], int) and cached["compiled"] <= 2


def test_a_corrupt_cache_file_means_compiling(tmp_path: Path) -> None:
    plain = probe(tmp_path / "off", off=True)
    probe(tmp_path)
    (file,) = tmp_path.glob("lsp-code-*.marshal")
    file.write_bytes(b"\x00garbage")
    again = probe(tmp_path)
    assert again["digest"] == plain["digest"] and again["stored"] == 0
    assert file.stat().st_size > 100_000  # written afresh

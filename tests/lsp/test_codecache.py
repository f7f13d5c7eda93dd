"""The attrs code cache gives exactly the code objects attrs compiles itself.

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
cache = codecache._installed
print(json.dumps({
    "digest": digest.hexdigest(), "count": count,
    "compiled": cache.compiled if cache else None,
    "stored": len(cache.stored) if cache else None,
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
    assert cached["stored"] == filling["compiled"]
    assert isinstance(cached["compiled"], int) and cached["compiled"] <= 2  # per-process seeds


def test_a_corrupt_cache_file_means_compiling(tmp_path: Path) -> None:
    plain = probe(tmp_path / "off", off=True)
    probe(tmp_path)
    (file,) = tmp_path.glob("lsp-code-*.marshal")
    file.write_bytes(b"\x00garbage")
    again = probe(tmp_path)
    assert again["digest"] == plain["digest"] and again["stored"] == 0
    assert file.stat().st_size > 100_000  # written afresh

"""The load-time check of a rule file (`check.py`), and the files that passed it, remembered
in the cache folder so that a process that loads the same rules again (every `check`, every
editor start) neither imports the checker nor compiles anything.

A verdict is kept by the sha256 of the rule file's bytes, in a file named by what the check
depends on besides them: the shipped config table and guards index, and the checker's code
(each by size and modification time). A broken rule is never remembered: it is checked, and
its error reported, every time. `PANIC_LENS_NO_CACHE=1` turns this off, as every cache; so
does a config table or known API other than the shipped one (tests substitute their own).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from panic_lens import cachedir

if TYPE_CHECKING:
    from panic_lens.rules.language.spec import RuleSpec

_HERE = Path(__file__).resolve().parent
_DATA = _HERE.parent / "data"  # configs.DATA_DIR, without importing it
_RUST = _HERE.parent.parent / "rust"
_CODE = ("check.py", "types.py", "api.py", "spec.py", "conditions.py", "configs.py", "verdicts.py")


def check_rule(spec: RuleSpec) -> None:
    """Raise RuleFileError for the first problem of a rule in the language (hooks pass),
    unless these bytes passed before with the same knowledge."""
    if spec.hook is not None:
        return
    known = passed()
    if known is not None and spec.fingerprint in known:
        return
    from panic_lens.rules.language import check  # CEL and the indexes: on a miss only

    check.check_rule(spec)
    if known is not None:
        known.add(spec.fingerprint)


class Passed:
    """The fingerprints of the rule files that passed, read once per process and folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.known = set(path.read_text(encoding="ascii").split())
        except (OSError, UnicodeDecodeError):
            self.known = set()

    def __contains__(self, fingerprint: str) -> bool:
        return fingerprint in self.known

    def add(self, fingerprint: str) -> None:
        if fingerprint in self.known:
            return
        self.known.add(fingerprint)
        with contextlib.suppress(OSError):  # a cache that cannot be written is no cache
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():  # a new stamp: the verdicts of the others are stale
                for stale in self.path.parent.glob("*.txt"):
                    stale.unlink(missing_ok=True)
            with self.path.open("a", encoding="ascii") as out:  # one short line: atomic
                out.write(fingerprint + "\n")


_OPEN: dict[str | None, Passed] = {}


def stored() -> bool:
    """Whether the rule files' verdicts of this knowledge are kept already (or none are
    kept): a process that loads the rules then checks only the rule files it has not seen."""
    known = passed()
    return known is None or known.path.exists()


def passed() -> Passed | None:
    """The verdicts in use, or None when none are kept."""
    if cachedir.disabled() or _substituted():
        return None
    moved = cachedir.override()  # the folder is looked up once per PANIC_LENS_CACHE_DIR
    found = _OPEN.get(moved)
    if found is None:
        found = _OPEN[moved] = Passed(cachedir.root() / "rulecheck" / f"{_stamp()}.txt")
    return found


def _substituted() -> bool:
    """Whether the config table or the known API is not the shipped one (a test's)."""
    configs = sys.modules.get("panic_lens.rules.language.configs")
    api = sys.modules.get("panic_lens.rules.language.api")
    return bool(
        (configs and not hasattr(configs.table, "cache_info"))
        or (api and not hasattr(api.known_api, "cache_info"))
    )


_STAMP: list[str] = []


def _stamp() -> str:
    if not _STAMP:
        files = sorted(_DATA.glob("burn-*")) + [_HERE / name for name in _CODE]
        files += [_RUST / "burn_api.py", _RUST / "tensors.py"]  # what `api` knows of burn
        cel = find_spec("cel_expr_python")
        if cel is not None and cel.origin:
            files.append(Path(cel.origin))
        parts = []
        for file in files:
            with contextlib.suppress(OSError):
                info = os.stat(file)
                parts.append(f"{file.name}:{info.st_size}:{info.st_mtime_ns}")
        _STAMP.append(hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24])
    return _STAMP[0]

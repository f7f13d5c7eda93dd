"""Byte-level prefilter for batch checks: the files in which no rule can find anything.

A file is analysed when it mentions a needle: a call name without which a rule cannot fire
(`RuleInfo.triggers`, plus any `PREFILTER_WORDS` a rule module declares) or the suppression
marker; or a name its crate gives one of those (`pub use burn::tensor::module::ctc_loss as
ctc;`), since rules resolve names through the crate's own modules. A rule that declares no
triggers turns the prefilter off: then nothing can be skipped soundly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from panic_lens.rules import rule_modules
from panic_lens.rules.meta import RULES

# `// panic-lens: allow(..)` comments yield hints even in files without a rule's call.
SUPPRESSION_MARKER = b"panic-lens"
_USE_ALIAS = re.compile(rb"\bas\s+([A-Za-z_][A-Za-z0-9_]*)")
_TYPE_ALIAS = re.compile(rb"\btype\s+([A-Za-z_][A-Za-z0-9_]*)")
_USE = re.compile(rb"\buse\s")
# Casts (`n as usize`) are not new names; a cast in a `use` statement cannot happen anyway.
_PRIMITIVES = frozenset(
    b"_ usize isize u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 bool char str".split()
)


@lru_cache(maxsize=1)
def base_needles() -> tuple[bytes, ...] | None:
    """The needles every file is tested against, minus words containing another; None when
    some rule declares no triggers (every file must be analysed)."""
    if not all(rule.triggers for rule in RULES):
        return None
    words = {t.encode() for rule in RULES for t in rule.triggers} | {SUPPRESSION_MARKER}
    for module in rule_modules():
        words |= set(getattr(module, "PREFILTER_WORDS", ()))
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


def mentions(data: bytes, needles: Iterable[bytes]) -> bool:
    return any(needle in data for needle in needles)


def may_match(data: bytes) -> bool:
    """False only when `data` mentions none of the base needles."""
    needles = base_needles()
    return needles is None or mentions(data, needles)


def crate_aliases(texts: Iterable[bytes]) -> tuple[bytes, ...]:
    """Names the crate's sources give the needles (and names of those names), to a fixpoint:
    `use ..::ctc_loss as ctc;` and `type Chan = RouterChannel<..>;` statements."""
    sources = list(texts)
    words = set(base_needles() or ())
    new, sites = set(words), {}
    while new:
        for i, text in enumerate(sources):
            if i not in sites and mentions(text, new):
                sites[i] = _alias_sites(text)
        new = {
            name
            for found in sites.values()
            for stmt, name in found
            if name not in words and mentions(stmt, words)
        }
        words |= new
    return tuple(sorted(words - set(base_needles() or ())))


def _alias_sites(text: bytes) -> list[tuple[bytes, bytes]]:
    """(statement, name) of each `use .. as name` and `type name = ..` of a source."""
    out = []
    for m in _USE_ALIAS.finditer(text):
        if m.group(1) in _PRIMITIVES or _in_comment(text, m):  # most `as` are numeric casts
            continue
        stmt = text[text.rfind(b";", 0, m.start()) + 1 : m.end()]
        if _USE.search(stmt):
            out.append((stmt, m.group(1)))
    for m in _TYPE_ALIAS.finditer(text):
        end = text.find(b";", m.end())
        if not _in_comment(text, m):
            out.append((text[m.start() : end if end >= 0 else len(text)], m.group(1)))
    return out


def _in_comment(text: bytes, match: re.Match[bytes]) -> bool:
    """A `//` comment line (doc comments talk about aliases a lot); block comments are rare
    enough that an alias read from one only costs an extra file analysed."""
    line = text[text.rfind(b"\n", 0, match.start()) + 1 : match.start()]
    return line.lstrip().startswith(b"//")


class Prefilter:
    """One run's prefilter; `contents` are the bytes already read, by absolute path."""

    def __init__(self, contents: Mapping[str, bytes]) -> None:
        self._contents = contents
        self._manifests: dict[str, Path | None] = {}
        self._aliases: dict[Path, tuple[bytes, ...]] = {}

    def keeps(self, path: str, data: bytes) -> bool:
        if may_match(data):
            return True
        aliases = self._crate_aliases(path)
        return bool(aliases) and mentions(data, aliases)

    def _crate_aliases(self, path: str) -> tuple[bytes, ...]:
        from panic_lens.rust.crate import find_manifest

        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._manifests:
            self._manifests[folder] = find_manifest(path)
        manifest = self._manifests[folder]
        if manifest is None:
            return ()
        if manifest not in self._aliases:
            self._aliases[manifest] = crate_aliases(self._sources(manifest.parent / "src"))
        return self._aliases[manifest]

    def _sources(self, src: Path) -> Iterable[bytes]:
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(f for f in filenames if f.endswith(".rs")):
                path = os.path.join(dirpath, name)
                data = self._contents.get(path)
                if data is None:
                    try:
                        data = Path(path).read_bytes()
                    except OSError:
                        continue
                yield data

"""Matching a record's panic half to the burn panic sites the rules declare.

A site matches when the record names the same burn file and either quotes the site's guard in
`sourceCode` or carries the site's message in `errorMessage` or `messagePattern`. Paths are
compared by their tail (`./`, a `crates/` prefix or its absence, backslashes, a crate folder
with a version as cargo's registry writes it, a trailing `:line:col`), text with whitespace
ignored, so a quote that moved or was re-wrapped still matches. `lineNumber` never decides
alone: it only orders two sites of one file that match equally well.

Two matches are refuted, because the record then shows that it is about another panic near the
site: a quote holding the site's guard in another statement than the record's own message (a
config's `assertions()` with two asserts, the record about the other one), and a shared check
text carried for another tensor operation (`The axes must be unique.` is both `permute`'s and
`flip`'s reason: the message names `Operation: 'flip'`, the guard `TensorCheck::permute`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlparse

from panic_lens.catalog.model import Record
from panic_lens.rules.meta import BurnSite, RuleInfo, per_rules

# `burn-cubecl-0.22.0-pre.2` (a crate folder in cargo's registry) is the crate `burn-cubecl`
_CRATE_VERSION = re.compile(r"-\d+\.\d+\.\d+[-+.\w]*$")
_LINE_COL = re.compile(r"(?::\d+){1,2}$")  # `ctc.rs:307:9`, as a panic message prints it
_WHITESPACE = re.compile(r"\s+")
_REGEX_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True, slots=True)
class SiteMatch:
    """One rule's site that a record's panic half matches, and by what evidence."""

    rule: str
    site: BurnSite
    guard: bool  # sourceCode quotes the guard
    message: bool  # errorMessage or messagePattern carries the message

    @property
    def evidence(self) -> int:
        return int(self.guard) + int(self.message)

    def describe(self) -> str:
        how = " and ".join(
            w for w, hit in (("guard", self.guard), ("message", self.message)) if hit
        )
        line = f":{self.site.line}" if self.site.line else ""
        return f"{self.rule} at {self.site.file}{line} ({how})"


def site_matches(record: Record, among: Iterable[RuleInfo] | None = None) -> tuple[SiteMatch, ...]:
    """Every site the record's panic half matches, in rule registry and site order."""
    path = record_path(record)
    if path is None:
        return ()
    parts = path_parts(path)
    by_name = _sites_by_file_name(None if among is None else tuple(among))
    named = by_name.get(parts[-1] if parts else "", ())
    in_file = [(rule, site) for rule, site in named if same_file(path, site.file)]
    if not in_file:
        return ()
    source = squash(record.panic.source_code or "")
    messages = (
        squash(record.panic.error_message),
        squash(regex_text(record.panic.message_pattern)),
    )
    found = []
    for rule, site in in_file:
        guard = bool(source) and _squashed(site.guard) in source
        message = any(_squashed(site.message) in text for text in messages if text)
        if guard and not message and _quotes_another_panic(source, site, messages[0]):
            continue
        if message and not guard and _another_operation(messages[0], site):
            continue
        if guard or message:
            found.append(SiteMatch(rule.id, site, guard, message))
    return tuple(found)


# A literal piece of a format string long enough to say which panic it is (`{}` holes split it).
_HOLE = re.compile(r"\{[^{}]*\}")
_MIN_PIECE = 12


def _quotes_another_panic(source: str, site: BurnSite, message: str) -> bool:
    """The quote holds the site's guard, and the record's own message too but never in the
    guard's statement (no `;` between them): the record is about another panic of the quote."""
    guard = _squashed(site.guard)
    pieces = [p for p in _HOLE.split(message) if len(p) >= _MIN_PIECE and p in source]
    if not pieces:
        return False  # the quote does not show the record's message: the guard decides
    guards = _positions(source, guard)
    for piece in pieces:
        for at in _positions(source, piece):
            for g in guards:
                between = source[g + len(guard) : at] if g < at else source[at + len(piece) : g]
                if ";" not in between:
                    return False
    return True


def _positions(text: str, part: str) -> list[int]:
    out, at = [], text.find(part)
    while at >= 0:
        out.append(at)
        at = text.find(part, at + 1)
    return out


_OPERATION = re.compile(r"Operation:'([^']+)'")
_CHECK = re.compile(r"TensorCheck::(\w+)(?:\(|::<)")


def _another_operation(message: str, site: BurnSite) -> bool:
    """burn's tensor checks print `Operation: '<op>'`; several checks share a reason text.
    A record naming another operation than the site's `TensorCheck::<op>` is not about it.
    A check is named after its operation, with a word or two after it for the argument it
    checks (check.rs: `movedim_args_length` and `movedim_args_vec` print 'Movedim',
    `squeeze_dims_len` 'Squeeze', `one_hot_tensor_rank` 'OneHot', `check_prelu_shape`
    'PReLu'), never before it: `slice` is not `slice_assign`'s 'SliceAssign'."""
    named, check = _OPERATION.search(message), _CHECK.search(site.guard)
    if named is None or check is None or not _op_key(named.group(1)):
        return False  # no operation named (`Operation: '{}'`, a format string's hole)
    checked = _op_key(check.group(1).removeprefix("check_"))
    return not checked.startswith(_op_key(named.group(1)))


def _op_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())  # `Into Scalar` is `into_scalar`


@per_rules
def _sites_by_file_name(
    registry: tuple[RuleInfo, ...],
) -> dict[str, list[tuple[RuleInfo, BurnSite]]]:
    """The rules' sites by their file's name, in rule registry and site order (a site can only
    be in a record's file of the same name)."""
    by_name: dict[str, list[tuple[RuleInfo, BurnSite]]] = {}
    for rule in registry:
        for site in rule.panic_sites:
            parts = path_parts(site.file)
            if parts:
                by_name.setdefault(parts[-1], []).append((rule, site))
    return by_name


def best_matches(record: Record, among: Iterable[RuleInfo] | None = None) -> tuple[SiteMatch, ...]:
    """The matches with the most evidence; among those, the sites nearest `lineNumber` when
    the record has one and every such site declares a line. Ties are all kept."""
    found = site_matches(record, among)
    if not found:
        return ()
    most = max(m.evidence for m in found)
    best = [m for m in found if m.evidence == most]
    line = record.panic.line_number
    if line is not None and all(m.site.line is not None for m in best):
        nearest = min(abs((m.site.line or 0) - line) for m in best)
        best = [m for m in best if abs((m.site.line or 0) - line) == nearest]
    return tuple(best)


def site_rules(record: Record, among: Iterable[RuleInfo] | None = None) -> tuple[str, ...]:
    """The rules whose panic site the record's panic half is about (more than one only on a
    tie between rules), in registry order."""
    return tuple(dict.fromkeys(m.rule for m in best_matches(record, among)))


def record_path(record: Record) -> str | None:
    """The burn file the record says it panics in: `filePath`, else the path in `githubUrl`."""
    if record.panic.file_path and record.panic.file_path.strip():
        return record.panic.file_path
    url = record.panic.github_url
    if not url:
        return None
    # https://github.com/<owner>/<repo>/blob/<ref>/<path>#L1-L2
    parts = urlparse(url).path.split("/")
    return "/".join(parts[5:]) if len(parts) > 5 and parts[3] == "blob" else None


@lru_cache(maxsize=8192)
def same_file(record_file: str, site_file: str) -> bool:
    """True when `record_file` ends with the site's path inside its crate folder (the same
    few paths come with every record of a dataset: the answers are kept)."""
    site = path_parts(site_file)
    if site[:1] == ("crates",):
        site = site[1:]
    have = path_parts(record_file)
    return bool(site) and have[-len(site) :] == site


def path_parts(path: str) -> tuple[str, ...]:
    text = _LINE_COL.sub("", path.strip().replace("\\", "/")).lower()
    return tuple(_CRATE_VERSION.sub("", p) for p in text.split("/") if p not in ("", "."))


def squash(text: str) -> str:
    """`text` without any whitespace, so re-wrapped or re-indented code still compares equal."""
    return _WHITESPACE.sub("", text)


@lru_cache(maxsize=256)
def _squashed(site_text: str) -> str:
    return squash(site_text)  # a site's guard or message: the same few texts for every record


def regex_text(pattern: str) -> str:
    """A messagePattern with its escapes undone (`\\*` -> `*`), to look for literal text in."""
    return _REGEX_ESCAPE.sub(r"\1", pattern)

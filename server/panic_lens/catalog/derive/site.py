"""Stage 1, finding the site: the panic in burn's guards index a record is about (its file,
the literal pieces of burn's message the record carries, the guard its sourceCode quotes,
the nearest line), and the other callers of a `TensorCheck` it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from panic_lens.catalog.derive.model import (
    SITE_NOT_FOUND,
    NotDerived,
    Site,
    callee_key,
    per_guards_index,
    split_args,
)
from panic_lens.catalog.model import Record
from panic_lens.catalog.sites import record_path, same_file, squash


def _holes_removed(message: str) -> list[str]:
    """The literal pieces of a format string (no `{..}` holes), squashed."""
    pieces = re.split(r"\{[^{}]*\}", message)
    return [squash(p) for p in pieces if len(squash(p)) >= 4]


def _message_score(pieces: tuple[tuple[str, str], ...], texts: str) -> int:
    """2 when `texts` (the record's squashed messages) carry every literal piece of burn's
    message (as written, or without its backslashes), 1 when some, 0 when none (or burn's
    message has no pieces)."""
    if not pieces:
        return 0
    hit = 0
    for piece, bare in pieces:
        if piece in texts or bare in texts:
            hit += 1
    return 2 if hit == len(pieces) else (1 if hit else 0)


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A panic site a record of one file may be about, with what scoring it needs."""

    site: Site
    line: int
    pieces: tuple[tuple[str, str], ...]  # burn's message's literal pieces, squashed (and bare)
    quote: str | None  # the guard's first part, squashed, as sourceCode would quote it


def find_site(record: Record, guards: dict[str, Any]) -> Site | NotDerived:
    """The panic the record is about: in its file, the site whose message the record carries
    and whose line its sourceCode quotes, nearest its lineNumber (lines may have drifted)."""
    path = record_path(record)
    if path is None:
        return NotDerived("the record names no burn file", SITE_NOT_FOUND)
    line = record.panic.line_number or 0
    start = record.panic.source_code_start or line
    end = record.panic.source_code_end or line
    source = _squashed_source(record.panic.source_code or "")
    texts = squash(record.panic.error_message) + "\n" + squash(record.panic.message_pattern)
    best: tuple[tuple[int, ...], Site] | None = None
    candidates, quoted_by = _candidates(guards.get("functions", {}), path)
    quotes = quoted_by.get(source)
    if quotes is None:
        quotes = quoted_by[source] = _quoted(candidates, source)
    for cand, quote in zip(candidates, quotes, strict=True):
        msg = _message_score(cand.pieces, texts)
        quoted = (start <= cand.line <= end) + quote
        if msg == 0 and quoted == 0:
            continue
        score = (msg, quoted, -abs(cand.line - line))
        if best is None or score > best[0]:
            best = (score, cand.site)
    if best is None:
        return NotDerived(f"no panic in burn's {path} carries the record's message", SITE_NOT_FOUND)
    return best[1]


def _quoted(candidates: tuple[_Candidate, ...], source: str) -> tuple[int, ...]:
    """For each candidate, 1 when the (squashed) sourceCode quotes its guard."""
    return tuple(
        int(bool(source) and c.quote is not None and c.quote in source) for c in candidates
    )


@lru_cache(maxsize=1024)
def _squashed_source(source: str) -> str:
    return squash(source)  # a dataset's records of one panic quote the same code


# per record path: the file's candidates, and their guard quotes by the (squashed)
# sourceCode (records of one panic quote the same code)
_Candidates = tuple[tuple[_Candidate, ...], dict[str, tuple[int, ...]]]


@per_guards_index
def _candidates_by_path(functions: dict[str, Any]) -> dict[str, _Candidates]:
    return {}  # filled by `_candidates`, path by path


def _candidates(functions: dict[str, Any], path: str) -> _Candidates:
    """The panic sites in the burn file `path` names, in index order; built once per path
    and guards index (records of one file share them)."""
    held = _candidates_by_path(functions)
    found = held.get(path)
    if found is not None:
        return found
    checks = check_functions(functions)
    check_keys = {id(fn) for fn in checks.values()}
    name = re.sub(r"(?::\d+){1,2}$", "", path.replace("\\", "/").rsplit("/", 1)[-1]).lower()
    out: list[_Candidate] = []
    for key in _by_file_name(functions).get(name, ()):
        fn = functions[key]
        if not same_file(path, fn["file"]):
            continue
        for index, site in enumerate(fn["panics"]):
            quote = _guard_quote(site) if site.get("guard") else None
            if site["kind"] == "check":
                check_fn = checks.get(site["check"])
                for reg_index, reg in enumerate(check_fn["panics"] if check_fn else ()):
                    if reg["kind"] == "register":
                        pieces = _pieces(reg["message"])
                        found_site = Site(key, index, (site["check"], reg_index))
                        out.append(_Candidate(found_site, site["line"], pieces, quote))
            else:
                pieces = _pieces(site["message"])
                found_site = Site(key, index, None)
                callers = check_sites(functions).get(fn["name"]) if id(fn) in check_keys else None
                if site["kind"] == "register" and callers:  # a record quoting check.rs: the
                    found_site = Site(*callers[0], (fn["name"], index))  # check's callers
                out.append(_Candidate(found_site, site["line"], pieces, quote))
        out += _message_arguments(key, fn, functions)
    result: _Candidates = (tuple(out), {})
    held[path] = result
    return result


def _message_arguments(key: str, fn: dict[str, Any], functions: dict[str, Any]) -> list[_Candidate]:
    """The panics whose message `fn` writes as an argument (`check_nonzero(groups, "groups
    must be non-zero")`): one site each, at the call."""
    out: list[_Candidate] = []
    for call in fn["calls"]:
        for target, index, position in message_params(functions).get(callee_key(call, fn), ()):
            if target == key or functions[target]["module"].split("::")[0] != crate_of(fn):
                continue
            args = call["args"]
            literal = args[position] if position < len(args) else ""
            if not re.fullmatch(r'"(?:[^"\\]|\\.)*"', literal):
                continue
            message = literal[1:-1]
            site = Site(target, index, None, (key, call["line"], message))
            out.append(_Candidate(site, call["line"], _pieces(message), None))
    return out


def crate_of(fn: dict[str, Any]) -> str:
    return str(fn["module"]).split("::")[0]


@per_guards_index
def message_params(functions: dict[str, Any]) -> dict[Any, list[tuple[str, int, int]]]:
    """The panics whose message is a parameter, by the (owner, name) calls name their
    function with: (function key, panic index, the parameter's position)."""
    index: dict[Any, list[tuple[str, int, int]]] = {}
    for key, fn in functions.items():
        for i, panic in enumerate(fn["panics"]):
            if "message_param" in panic:
                index.setdefault((fn["owner"], fn["name"]), []).append(
                    (key, i, panic["message_param"])
                )
    return index


def _pieces(burn_message: str | None) -> tuple[tuple[str, str], ...]:
    pieces = _holes_removed(burn_message) if burn_message else []
    return tuple((p, p.replace("\\", "")) for p in pieces)


@per_guards_index
def _by_file_name(functions: dict[str, Any]) -> dict[str, list[str]]:
    """Function keys by their file's name (`group.rs`)."""
    index: dict[str, list[str]] = {}
    for key, fn in functions.items():
        index.setdefault(fn["file"].rsplit("/", 1)[-1].lower(), []).append(key)
    return index


def _guard_quote(site: dict[str, Any]) -> str | None:
    """The part of the site's guard a record's sourceCode quotes (squashed), None if none."""
    guard = str(site.get("guard") or "")
    inner = re.sub(r"^!\((.*)\)$", r"\1", guard)
    first = split_args(inner)[0] if inner else ""
    return squash(first.strip("()")) if first else None


@per_guards_index
def check_functions(functions: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """burn-tensor's TensorCheck functions by name."""
    return {
        fn["name"]: fn
        for fn in functions.values()
        if fn["owner"] == "TensorCheck" and fn["file"].endswith("check.rs")
    }


@per_guards_index
def check_sites(functions: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """The `check!(TensorCheck::f(..))` sites (function key, panic index) by check name."""
    index: dict[str, list[tuple[str, int]]] = {}
    for key, fn in functions.items():
        for i, panic in enumerate(fn["panics"]):
            if panic["kind"] == "check":
                index.setdefault(panic["check"], []).append((key, i))
    return index


def same_check(site: Site, functions: dict[str, Any]) -> list[Site]:
    """The other `check!(TensorCheck::f(..))` sites of the check `site` runs, in index
    order: a record quotes one caller's line, and every caller raises the check's panic."""
    if site.check is None:
        return []
    return [
        Site(key, i, site.check)
        for key, i in check_sites(functions).get(site.check[0], ())
        if (key, i) != (site.fn_key, site.index)
    ]


# burn's messages too short or too plain to say which panic they are
_MIN_SAME_MESSAGE = 16


def same_message(site: Site, functions: dict[str, Any]) -> list[Site]:
    """The other panics of `site`'s crate that raise burn's message word for word (burn
    writes one check twice: `WindowsDataset::new` and the `windows` trait method, `rfft` and
    `irfft`): a record quotes one of them, and its user sees the same panic from each."""
    if site.check is not None:
        return []
    if site.via is not None:
        caller = functions[site.via[0]]
        return [
            other
            for other in message_arguments(functions).get(site.via[2], ())
            if other != site and crate_of(functions[other.via[0]]) == crate_of(caller)  # type: ignore[index]
        ]
    fn = functions[site.fn_key]
    message = fn["panics"][site.index].get("message")
    if not message or len(squash(message)) < _MIN_SAME_MESSAGE:
        return []
    crate = fn["module"].split("::")[0]
    return [
        Site(key, index, None)
        for key, index in messages_of(functions).get(message, ())
        if (key, index) != (site.fn_key, site.index)
        and functions[key]["module"].split("::")[0] == crate
    ]


@per_guards_index
def messages_of(functions: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """The panics (function key, index) by burn's message, `check!` sites left out."""
    index: dict[str, list[tuple[str, int]]] = {}
    for key, fn in functions.items():
        for i, panic in enumerate(fn["panics"]):
            if panic["kind"] not in ("check", "register") and panic.get("message"):
                index.setdefault(panic["message"], []).append((key, i))
    return index


@per_guards_index
def message_arguments(functions: dict[str, Any]) -> dict[str, list[Site]]:
    """The sites of panics whose message a caller passes, by that message."""
    index: dict[str, list[Site]] = {}
    for key, fn in functions.items():
        for candidate in _message_arguments(key, fn, functions):
            assert candidate.site.via is not None
            index.setdefault(candidate.site.via[2], []).append(candidate.site)
    return index


def pattern_siblings(record: Record, site: Site, functions: dict[str, Any]) -> list[Site]:
    """The other panics of `site`'s function that the record's sourceCode quotes and whose
    whole message (one without holes) its messagePattern matches: a record whose pattern is
    `k[12] must be positive` is about both asserts it quotes, whichever raised its message."""
    pattern = record.panic.message_pattern
    if site.check is not None or site.via is not None or not pattern:
        return []
    try:
        regex = re.compile(pattern)
    except re.error:
        return []
    if regex.fullmatch("") or regex.fullmatch("x"):
        return []  # a pattern that matches anything says nothing of which panic
    fn = functions[site.fn_key]
    line = record.panic.line_number or 0
    start = record.panic.source_code_start or line
    end = record.panic.source_code_end or line
    own = fn["panics"][site.index].get("message")
    return [
        Site(site.fn_key, index, None)
        for index, panic in enumerate(fn["panics"])
        if index != site.index
        and start <= panic["line"] <= end
        and (message := panic.get("message"))
        and message != own
        and "{" not in message
        and regex.fullmatch(message)
    ]

"""Required literal fragments of a messagePattern, for explain's one-pass prefilter.

`required_factor(p)` returns a set of strings (ASCII-lowercased) such that every match of `p`
contains at least one of them, or None when no useful set is known. A quick scan of the
pattern's top level serves most real patterns; otherwise the standard library's regex parser
reads it. Anything that parser does not understand, or that the `regex` package reads
differently (fuzzy constraints), gets None and is always verified.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import Any

# The standard library's own regex parser (Python 3.11+ names); typeshed does not describe it.
sre_parse: Any = import_module("re._parser")
sre_constants: Any = import_module("re._constants")

MIN_LITERAL = 3  # shorter fragments hit on almost every line and filter nothing
QUICK_ENOUGH = 12  # a top-level literal this long filters well; skip the full parse
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_COUNTED_REPEAT = re.compile(r"\{\d*(?:,\d*)?\}")
_ZERO_WIDTH = {sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT}
_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
_REPEATS |= {getattr(sre_constants, "POSSESSIVE_REPEAT", sre_constants.MAX_REPEAT)}

Factor = frozenset[str]


def ascii_lower(text: str) -> str:
    """Lowercase ASCII letters only, so offsets in the result equal offsets in `text`."""
    return text.translate(ASCII_LOWER)


def required_factor(pattern: str) -> Factor | None:
    """The best set of literals one of which every match must contain, or None."""
    # The quick scan refuses any brace that is not a counted repeat, as the check below does.
    quick = max(top_level_literals(pattern) or [""], key=len)
    if len(quick) >= QUICK_ENOUGH:
        return frozenset({ascii_lower(quick)})
    if _has_uncounted_brace(pattern):
        return None  # `{e<=1}` and friends: the regex package's fuzzy matching
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:  # re rejects regex-only syntax (\p{..}, \L<..>, ...): no prefilter
        return None
    ignore_case = bool(parsed.state.flags & sre_constants.SRE_FLAG_IGNORECASE)
    return _sequence(list(parsed.data), ignore_case)


def _sequence(items: list[Any], ignore_case: bool) -> Factor | None:
    candidates: list[Factor] = []
    run: list[str] = []
    for op, arg in items:
        if op is sre_constants.LITERAL and (arg < 128 or not ignore_case):
            run.append(chr(arg))
            continue
        if op in _ZERO_WIDTH:
            continue  # consumes nothing: the literals either side stay contiguous
        _close(run, candidates)
        factor = _item(op, arg, ignore_case)
        if factor is not None:
            candidates.append(factor)
    _close(run, candidates)
    return max(candidates, key=_quality, default=None)


def _item(op: Any, arg: Any, ignore_case: bool) -> Factor | None:
    if op is sre_constants.SUBPATTERN:
        return _sequence(list(arg[-1].data), ignore_case)
    if op in _REPEATS:
        low, _high, body = arg
        return _sequence(list(body.data), ignore_case) if low >= 1 else None
    if op is getattr(sre_constants, "ATOMIC_GROUP", None):
        return _sequence(list(arg.data), ignore_case)
    if op is sre_constants.BRANCH:
        alternatives = [_sequence(list(alt.data), ignore_case) for alt in arg[1]]
        if any(a is None for a in alternatives):
            return None
        return frozenset().union(*(a for a in alternatives if a is not None))
    return None


def _close(run: list[str], candidates: list[Factor]) -> None:
    if len(run) >= MIN_LITERAL:
        candidates.append(frozenset({ascii_lower("".join(run))}))
    run.clear()


def _quality(factor: Factor) -> tuple[int, int]:
    # The shortest member decides how often the set hits; fewer members is better.
    return (min(len(s) for s in factor), -len(factor))


def _has_uncounted_brace(pattern: str) -> bool:
    for m in re.finditer(r"(?<!\\)(?:\\\\)*\{", pattern):
        if not _COUNTED_REPEAT.match(pattern, m.end() - 1):
            return True
    return False


def top_level_literals(pattern: str) -> list[str] | None:
    """Literal runs every match contains, read from the pattern's top level only.

    None when the pattern needs the full parser: a top-level `|`, inline flags, nested sets.
    Groups, classes, escapes of letters and quantified characters end a run (always safe:
    a shorter run is still required).
    """
    runs: list[str] = []
    run = ""
    depth = 0
    for m in _TOKEN.finditer(pattern):
        kind, text = m.lastgroup, m.group()
        if kind in ("flags", "other") or (kind == "cls" and "[" in text[1:-1].replace("\\[", "")):
            return None  # inline flags, lookarounds, nested sets: the full parser decides
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                return None
        if depth > 0 or kind in ("open", "close"):
            run = _end(run, runs)
        elif kind == "alt":
            return None
        elif kind in ("lit", "esc"):
            run += text if kind == "lit" else text[1]
        elif kind == "quant":
            run = _end(run[:-1], runs)  # the quantified character may be absent
        else:
            run = _end(run, runs)
    _end(run, runs)
    return runs


_TOKEN = re.compile(
    r"""(?P<lit>[^\\\[\](){}|*+?.^$]+)
      | (?P<esc>\\[^A-Za-z0-9_])
      | (?P<word>\\[A-Za-z0-9_])
      | (?P<cls>\[\^?\]?(?:\\.|[^\]\\])*\])
      | (?P<flags>\(\?(?!:))
      | (?P<open>\((?:\?:)?)
      | (?P<close>\))
      | (?P<alt>\|)
      | (?P<quant>[*+?]|\{\d*(?:,\d*)?\})
      | (?P<anchor>[.^$])
      | (?P<other>.)""",
    re.VERBOSE | re.DOTALL,
)


def _end(run: str, runs: list[str]) -> str:
    if run:
        runs.append(run)
    return ""

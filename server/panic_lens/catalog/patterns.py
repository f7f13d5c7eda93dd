"""One compile per messagePattern, and none for patterns that cannot fail to compile.

Compiling with the regex package costs about 0.4 ms a pattern (its parser is pure Python), so
a 10,000-record dataset would pay seconds at load. Most dataset patterns are generated from a
format string: escaped literal text with `(.+?)` holes. `is_plain` recognises that shape,
which is valid regex syntax by construction, so validation can skip compiling it; explain
compiles patterns lazily, only those whose literals occur in the text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

MAX_CACHED = 65_536
DEFAULT_TIMEOUT = 0.1  # seconds per regex call in explain; real patterns take microseconds

# Plain text (no metacharacters); ASCII punctuation or space escaped with a backslash; escapes
# that stand for one character (`\n`, `\t`, ... `\x41`, `\u00e9`: multi-line panics such as
# burn's tensor checks hold `\n`); and capture groups of one simple repeated class: `(.+?)`,
# `(.*)`, `(\d+)`, `(\S+?)`, ... The pattern runs on the user's records, so it must take linear
# time on any text: each alternative starts with a character no other one starts with (a
# literal, `\`, `(`), each escape and group has a fixed shape, and the runs and the star are
# possessive, so a failed match never goes back to split a run differently.
_PLAIN = re.compile(
    r"""(?:
        [^\\\[\](){}|*+?.^$]++
      | \\(?:[ -/:-@\[-`{-~]|[afnrtv]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})
      | \((?:\.|\\[dDsSwW])[+*]\??\)
    )*+""",
    re.VERBOSE,
)


def is_plain(pattern: str) -> bool:
    """True for patterns built only from literals and simple capture groups (always valid)."""
    return _PLAIN.fullmatch(pattern) is not None


@lru_cache(maxsize=MAX_CACHED)
def compile_pattern(pattern: str, multiline: bool = False) -> regex.Pattern[str]:
    """`regex.compile(pattern)`; raises regex.error like it. The package is imported here: a
    `check` whose records are all plain never pays for it."""
    import regex

    return regex.compile(pattern, regex.MULTILINE if multiline else 0)

"""Reading a rule expression's text without evaluating it: its string literals and the
top-level names it reads (what a rule file's checks and `viable` need of it)."""

from __future__ import annotations

import re

STRING_LITERAL = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


_CEL_WORDS = frozenset(
    {"true", "false", "null", "in", "size", "has", "int", "uint", "double", "string", "bool",
     "type", "exists", "all", "exists_one", "map", "filter", "matches", "startsWith",
     "endsWith", "contains", "dyn", "list", "bytes", "max", "min"}
)  # fmt: skip


def free_names(expr: str) -> set[str]:
    """The top-level identifiers an expression reads (not fields after `.`, not functions,
    not the variables of `exists`/`all` macros)."""
    body = STRING_LITERAL.sub('""', expr)
    bound = set(re.findall(r"\.\s*(?:exists|all|exists_one|map|filter)\s*\(\s*(\w+)\s*,", body))
    out: set[str] = set()
    for found in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)\s*(\()?", body):
        name, call = found.group(1), found.group(2)
        if call or name in _CEL_WORDS or name in bound:
            continue
        out.add(name)
    return out

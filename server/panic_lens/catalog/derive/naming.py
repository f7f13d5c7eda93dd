"""What a derived rule says of itself: its id, read as the panic (`derived-<type>-<field>-<what>`,
from burn's source only, so stable across runs), and the values its condition read, shown in
its message (`(delta = {config.delta})`) so that a finding says why it fires.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from panic_lens.catalog.derive.model import Entry
from panic_lens.catalog.derive.translate import balanced

__all__ = ["bare", "read_values", "rule_slug", "unique_id"]

MAX_SHOWN = 4  # values shown in a message
MAX_SLUG = 64

# A value a condition reads that a call shows: a config's field (an element of it), the
# receiver's or a tensor argument's shape, rank or element count, the result's rank, an
# argument (`{names}` is the call's argument names).
_VALUE = (
    r"(?<![\w.])(?:config\.\w+(?:\[\d+\])?|(?:receiver|{names})\.(?:dims|rank|numel)"
    r"|result\.rank|(?:{names})(?:\[\d+\])?)(?![\w(])"
)
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_STOP = frozenset(
    {"a", "an", "the", "of", "for", "to", "be", "is", "are", "must", "should", "can", "not",
     "cannot", "with", "and", "or", "in", "on", "at", "by", "than", "got", "expected", "found",
     "given", "as", "it", "its", "this", "that", "from", "into", "only", "assertion", "failed",
     "self", "left", "right", "panicked", "tensor", "operation", "error", "reason"}
)  # fmt: skip


def _label(expr: str) -> str:
    """How the message names a value: a config's field by its name, the receiver's shape as
    `shape`, an argument by its name."""
    if expr.startswith("config."):
        return expr.removeprefix("config.")
    if expr.startswith("receiver."):
        return {"dims": "shape", "numel": "elements"}.get(expr[9:], expr[9:])
    return expr.replace(".dims", " shape").replace(".numel", " elements")


def _values_of(entry: Entry) -> list[str]:
    """The values `entry`'s condition reads, in the order it reads them."""
    body = _STRINGS.sub('""', entry.condition)
    return list(dict.fromkeys(_values_pattern(tuple(entry.params)).findall(body)))


@lru_cache(maxsize=1024)
def _values_pattern(params: tuple[str, ...]) -> re.Pattern[str]:
    """`_VALUE` for these parameters, compiled once (entries of one function share them)."""
    names = "|".join(re.escape(p) for p in params if re.fullmatch(r"[a-z_]\w*", p))
    return re.compile(_VALUE.replace("{names}", names or r"(?!x)x"))


def read_values(entries: list[Entry], shown: set[str]) -> list[tuple[str, list[str]]]:
    """The values to show after the message, as (label, each entry's expression): those every
    entry's condition reads under one label, and that the message does not show already
    (`shown`: the expressions its holes print)."""
    per_entry = [{_label(v): v for v in _values_of(e)} for e in entries]
    for values in per_entry:  # a shown shape says the rank
        for label, expr in list(values.items()):
            if expr.endswith(".rank") and expr.replace(".rank", ".dims") in values.values():
                del values[label]
    if not per_entry:
        return []
    labels = [label for label in per_entry[0] if all(label in p for p in per_entry[1:])]
    out: list[tuple[str, list[str]]] = []
    for label in labels:
        exprs = [p[label] for p in per_entry]
        if any(bare(x) in shown for x in exprs):
            continue
        out.append((label, exprs))
    return out[:MAX_SHOWN]


def bare(expr: str) -> str:
    """`expr` without the parentheses around all of it."""
    while expr.startswith("(") and expr.endswith(")") and balanced(expr[1:-1]):
        expr = expr[1:-1]
    return expr


def _kebab(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def rule_slug(entries: list[Entry], text: str) -> str:
    """`derived-<type>-<method>-<field>-<what>`: the first call's type (and its method when it
    is not a config's `init`), the first value the condition reads, and the first words of
    burn's message that say something (`text`)."""
    call = min(e.call for e in entries)
    *_, owner, method = ["", *call.split("::")]
    first = next(iter(entries), None)
    parts = [_kebab(owner)] if owner[:1].isupper() else []
    if not (first is not None and first.kind == "config" and method == "init"):
        parts.append(_kebab(method))
    values = _values_of(min(entries, key=lambda e: e.call))
    if values:
        value = _kebab(re.sub(r"\[\d+\]$", "", _label(values[0])).replace(" ", "-"))
        if not set(value.split("-")) <= set("-".join(parts).split("-")):
            parts.append(value)
    taken = set("-".join(parts).split("-"))
    words = [w for w in re.findall(r"[a-z][a-z0-9]*", text.lower()) if w not in _STOP]
    words = [w for w in dict.fromkeys(words) if w not in taken][:3]
    slug = "-".join(p for p in [*parts, *words] if p)
    return "derived-" + (slug[:MAX_SLUG].rstrip("-") or "panic")


def unique_id(slug: str, key: str, taken: dict[str, str]) -> str:
    """`slug`, or where another panic (another `key`) took it first, `slug` with a short hash
    of `key`."""
    owner = taken.setdefault(slug, key)
    if owner == key:
        return slug
    out = f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:6]}"
    taken.setdefault(out, key)
    return out

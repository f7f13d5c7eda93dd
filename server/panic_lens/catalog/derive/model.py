"""What the deriver's stages share: its outcomes (`Derived`, `NotDerived` and the reasons by
kind), the `Unmapped` a stage raises on a Rust construct with no exact rule-language form,
the panic site (`Site`), the conditions carried up the call graph (`Chain`), a public call
with its condition (`Entry`), and the per-guards-index memo the stages' tables use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar

from panic_lens.rules.language.spec import RuleSpec


# The guards index's text helpers, imported when a record is derived (tree-sitter loads with
# them): a run that finds every derivation in the cache never loads the parser.
def split_args(text: str) -> list[str]:
    from panic_lens.rust.burn_guards import split_args as split

    return split(text)


def callee_key(call: dict[str, Any], caller: dict[str, Any]) -> tuple[str | None, str]:
    from panic_lens.rust.burn_guards import callee_key as key

    return key(call, caller)


# Reasons a record is not derived, by kind (the first word of `NotDerived.reason`).
SITE_NOT_FOUND = "site not found"
CONSTRUCT = "guard construct not understood"
NOT_PUBLIC = "entry point not public"
NOT_VISIBLE = "value never visible at a call site"


@dataclass(frozen=True, slots=True)
class Derived:
    spec: RuleSpec
    toml: str
    site: str  # `file:line` of burn's panic


@dataclass(frozen=True, slots=True)
class NotDerived:
    reason: str
    kind: str = CONSTRUCT

    def __str__(self) -> str:
        return self.reason


class Unmapped(Exception):
    """A Rust construct with no exact rule-language form."""


@dataclass(frozen=True, slots=True)
class Site:
    fn_key: str
    index: int  # in the function's panics
    check: tuple[str, int] | None  # the TensorCheck function and its register site, for check!
    # for a panic whose message is a parameter (`.expect(msg)`): the call that passes it
    # (caller's key, the call's line, the message written there); only that call is followed
    via: tuple[str, int, str] | None = None


T = TypeVar("T")


def per_guards_index(build: Callable[[dict[str, Any]], T]) -> Callable[[dict[str, Any]], T]:
    """`build(functions)`, made once per guards index: kept for the last index asked about
    (a load derives all its records against one)."""
    held: list[tuple[dict[str, Any], T]] = []

    @wraps(build)
    def table(functions: dict[str, Any]) -> T:
        if not held or held[0][0] is not functions:
            held[:] = [(functions, build(functions))]
        return held[0][1]

    return table


@dataclass(frozen=True, slots=True)
class Chain:
    """The conditions (path items, innermost last) for the panic, in `fn`'s scope."""

    fn: str  # key in functions
    items: tuple[tuple[str, ...], ...]
    holes: tuple[str, ...]  # the message's values, Rust expressions in `fn`'s scope


@dataclass(slots=True)
class Entry:
    call: str  # the `[[where]]` path
    kind: str  # "config" | "method" | "function"
    params: list[str]
    condition: str  # CEL, in the rule language's names
    holes: list[str | None] = field(default_factory=list)
    result_generic: int | None = None  # the turbofish position of the returned tensor's rank

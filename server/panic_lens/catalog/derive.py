"""A record of a burn panic that no rule covers becomes a check: find the record's panic site
in burn's guards index (`rust/burn_guards.py`), follow its guard up to the public calls that
reach it, and write the condition in the rule language (docs/rule-language.md).

The rule says only what is definitely true: every Rust construct on the way is translated
exactly or the record is `NotDerived` with the construct named; a value the call does not
show stays unknown at run time, so the rule is silent there.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import marshal
import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from functools import lru_cache, wraps
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from panic_lens.catalog.model import PanicSite, Record
from panic_lens.catalog.sites import record_path, same_file, squash
from panic_lens.rules.language.configs import DATA_DIR, ConfigTable
from panic_lens.rules.language.spec import RuleFileError, RuleSpec, parse_rule
from panic_lens.rules.meta import RuleInfo
from panic_lens.rust.burn_api import tensor_type_args

if TYPE_CHECKING:
    from panic_lens.rust.syntax import Node


# The guards index's text helpers, imported when a record is derived (tree-sitter loads with
# them): a run that finds every derivation in the cache never loads the parser.
def split_args(text: str) -> list[str]:
    from panic_lens.rust.burn_guards import split_args as split

    return split(text)


def callee_key(call: dict[str, Any], caller: dict[str, Any]) -> tuple[str | None, str]:
    from panic_lens.rust.burn_guards import callee_key as key

    return key(call, caller)


__all__ = [
    "Covered", "Derived", "NotDerived", "derive", "derive_all", "derived_toml",
    "register_derived", "shipped_guards",
]  # fmt: skip

MAX_DEPTH = 5  # private helpers followed up to this many calls
MAX_ENTRIES = 64

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


# -- finding the site ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Site:
    fn_key: str
    index: int  # in the function's panics
    check: tuple[str, int] | None  # the TensorCheck function and its register site, for check!


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

    site: _Site
    line: int
    pieces: tuple[tuple[str, str], ...]  # burn's message's literal pieces, squashed (and bare)
    quote: str | None  # the guard's first part, squashed, as sourceCode would quote it


def find_site(record: Record, guards: dict[str, Any]) -> _Site | NotDerived:
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
    best: tuple[tuple[int, ...], _Site] | None = None
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


T = TypeVar("T")


def _per_guards_index(build: Callable[[dict[str, Any]], T]) -> Callable[[dict[str, Any]], T]:
    """`build(functions)`, made once per guards index: kept for the last index asked about
    (a load derives all its records against one)."""
    held: list[tuple[dict[str, Any], T]] = []

    @wraps(build)
    def table(functions: dict[str, Any]) -> T:
        if not held or held[0][0] is not functions:
            held[:] = [(functions, build(functions))]
        return held[0][1]

    return table


# per record path: the file's candidates, and their guard quotes by the (squashed)
# sourceCode (records of one panic quote the same code)
_Candidates = tuple[tuple[_Candidate, ...], dict[str, tuple[int, ...]]]


@_per_guards_index
def _candidates_by_path(functions: dict[str, Any]) -> dict[str, _Candidates]:
    return {}  # filled by `_candidates`, path by path


def _candidates(functions: dict[str, Any], path: str) -> _Candidates:
    """The panic sites in the burn file `path` names, in index order; built once per path
    and guards index (records of one file share them)."""
    held = _candidates_by_path(functions)
    found = held.get(path)
    if found is not None:
        return found
    checks = _check_functions(functions)
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
                        found_site = _Site(key, index, (site["check"], reg_index))
                        out.append(_Candidate(found_site, site["line"], pieces, quote))
            else:
                pieces = _pieces(site["message"])
                found_site = _Site(key, index, None)
                callers = _check_sites(functions).get(fn["name"]) if id(fn) in check_keys else None
                if site["kind"] == "register" and callers:  # a record quoting check.rs: the
                    found_site = _Site(*callers[0], (fn["name"], index))  # check's callers
                out.append(_Candidate(found_site, site["line"], pieces, quote))
    result: _Candidates = (tuple(out), {})
    held[path] = result
    return result


def _pieces(burn_message: str | None) -> tuple[tuple[str, str], ...]:
    pieces = _holes_removed(burn_message) if burn_message else []
    return tuple((p, p.replace("\\", "")) for p in pieces)


@_per_guards_index
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


@_per_guards_index
def _check_functions(functions: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """burn-tensor's TensorCheck functions by name."""
    return {
        fn["name"]: fn
        for fn in functions.values()
        if fn["owner"] == "TensorCheck" and fn["file"].endswith("check.rs")
    }


# -- conditions as Rust text, carried up the call graph ---------------------------------------


@dataclass(frozen=True, slots=True)
class _Chain:
    """The conditions (path items, innermost last) for the panic, in `fn`'s scope."""

    fn: str  # key in functions
    items: tuple[tuple[str, ...], ...]
    holes: tuple[str, ...]  # the message's values, Rust expressions in `fn`'s scope


_SIMPLE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*|\d[\w.]*")  # needs no parentheses


def _substitute(text: str, mapping: dict[str, str]) -> str:
    if not mapping:
        return text

    def repl(found: re.Match[str]) -> str:
        name = found.group(0)
        if name not in mapping:
            return name
        value = mapping[name].strip()
        return value if _SIMPLE.fullmatch(value) else f"({value})"

    pattern = r"(?<![\w.:])(?:" + "|".join(re.escape(n) for n in mapping) + r")(?![\w(]|\s*::)"
    out = []
    for part in re.split(r'("(?:[^"\\]|\\.)*")', text):
        out.append(part if part.startswith('"') else re.sub(pattern, repl, part))
    return "".join(out)


def _subst_item(item: tuple[str, ...], mapping: dict[str, str]) -> tuple[str, ...]:
    kind = item[0]
    if kind in ("for", "iflet", "else-let"):  # the pattern binds; only the value is replaced
        return (kind, item[1], _substitute(item[2], mapping))
    if kind == "arm":
        return (kind, _substitute(item[1], mapping), *item[2:])
    return (kind, *(_substitute(t, mapping) for t in item[1:]))


def _inline_lets(
    fn: dict[str, Any], items: list[tuple[str, ...]], holes: list[str], before: int
) -> None:
    """Replace the names of `let`s written before line `before` (the last binding of each)."""
    lets: dict[str, str] = {}
    for name, bindings in fn.get("lets", {}).items():
        earlier = [expr for line, expr in bindings if line < before]
        if earlier:
            lets[name] = earlier[-1].removeprefix("&")
    for round_ in range(4):
        if round_ == 1:  # `let dim = wrap(dim)` is inlined once, never again
            lets = {n: e for n, e in lets.items() if not re.search(rf"\b{n}\b", e)}
        if not lets:
            return
        items[:] = [_subst_item(i, lets) for i in items]
        holes[:] = [_substitute(h, lets) for h in holes]


def _initial_chain(site: _Site, functions: dict[str, Any]) -> _Chain:
    fn = functions[site.fn_key]
    panic = fn["panics"][site.index]
    items: list[tuple[str, ...]] = [tuple(p) for p in panic["path"]]
    holes: list[str] = []
    if site.check is not None:
        check_fn = _check_functions(functions)[site.check[0]]
        reg = check_fn["panics"][site.check[1]]
        inner: list[tuple[str, ...]] = [tuple(p) for p in reg["path"]]
        holes = _named_holes(reg.get("message") or "")
        _inline_lets(check_fn, inner, holes, reg["line"])
        names = [p[0] for p in check_fn["params"]]
        mapping = {
            n: a.removeprefix("&") for n, a in zip(names, panic.get("args", ()), strict=False)
        }
        generics, given = check_fn.get("generics", []), panic.get("generics", [])
        if len(generics) == len(given):  # `TensorCheck::unsqueeze::<D, D2>()`: D1 is `D`
            mapping.update((n, a) for n, a in zip(generics, given, strict=True) if a != "_")
        items += [_subst_item(i, mapping) for i in inner]
        holes = [_substitute(h, mapping) for h in holes]
    else:
        if panic.get("guard"):
            items.append(("if", panic["guard"]))
        if panic["kind"] == "expect":
            items[-1] = ("if", _expect_guard(panic["guard"]))
        holes = _named_holes(panic.get("message") or "")
    _inline_lets(fn, items, holes, panic["line"])
    return _Chain(site.fn_key, tuple(items), tuple(holes))


@_per_guards_index
def _check_sites(functions: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """The `check!(TensorCheck::f(..))` sites (function key, panic index) by check name."""
    index: dict[str, list[tuple[str, int]]] = {}
    for key, fn in functions.items():
        for i, panic in enumerate(fn["panics"]):
            if panic["kind"] == "check":
                index.setdefault(panic["check"], []).append((key, i))
    return index


def _same_check(site: _Site, functions: dict[str, Any]) -> list[_Site]:
    """The other `check!(TensorCheck::f(..))` sites of the check `site` runs, in index
    order: a record quotes one caller's line, and every caller raises the check's panic."""
    if site.check is None:
        return []
    return [
        _Site(key, i, site.check)
        for key, i in _check_sites(functions).get(site.check[0], ())
        if (key, i) != (site.fn_key, site.index)
    ]


def _expect_guard(guard: str) -> str:
    """`NonZeroUsize::new(x).expect(..)` fails when x == 0, `xs.first().expect(..)` (or
    `.last()`) when xs is empty; other `.expect`s are not read."""
    found = re.fullmatch(r"NonZero(?:U|I)(?:size|8|16|32|64|128)::new\((.*)\) fails", guard)
    if found is not None:
        return f"({found.group(1)}) == 0"
    found = re.fullmatch(r"(.+?)\s*\.\s*(?:first|last)\(\) fails", guard, re.S)
    if found is not None:
        return f"({found.group(1)}).is_empty()"
    raise Unmapped("`.expect(..)` (the failure of a Result or Option)")


def _named_holes(message: str) -> list[str]:
    """`{channels_in}` holes of a format string (positional `{}` ones are not followed)."""
    return [h for h in re.findall(r"\{(\w+)(?::[^{}]*)?\}", message) if not h.isdigit()]


@dataclass(slots=True)
class _Entry:
    call: str  # the `[[where]]` path
    kind: str  # "config" | "method" | "function"
    params: list[str]
    condition: str  # CEL, in the rule language's names
    holes: list[str | None] = field(default_factory=list)
    result_generic: int | None = None  # the turbofish position of the returned tensor's rank


@_per_guards_index
def _call_index(functions: dict[str, Any]) -> dict[Any, list[tuple[str, dict[str, Any]]]]:
    """Calls by callee key."""
    index: dict[Any, list[tuple[str, dict[str, Any]]]] = {}
    for key, caller in functions.items():
        for call in caller["calls"]:
            index.setdefault(callee_key(call, caller), []).append((key, call))
    return index


def _callers(fn_key: str, functions: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    fn = functions[fn_key]
    for key, call in _call_index(functions).get((fn["owner"], fn["name"]), ()):
        if fn["owner"] is None and not _names_this(fn, functions[key], call, functions):
            continue
        yield key, call


def _names_this(
    fn: dict[str, Any], caller: dict[str, Any], call: dict[str, Any], functions: dict[str, Any]
) -> bool:
    """Whether a call by a free function's name is a call of `fn`: a bare name from its own
    module, or from its crate when no other free function there has that name; a path whose
    modules end the way `fn`'s module does (`checks::f`, `crate::a::checks::f`)."""
    segments = [s for s in str(call["callee"]).split("::") if s not in ("crate", "self", "super")]
    module = fn["module"].split("::")
    if len(segments) == 1:
        if caller["module"] == fn["module"]:
            return True
        same = _free_functions(functions).get((module[0], fn["name"]), 0)
        return caller["module"].split("::")[0] == module[0] and same == 1
    qualifier = segments[:-1]
    return module[-len(qualifier) :] == qualifier


@_per_guards_index
def _free_functions(functions: dict[str, Any]) -> dict[tuple[str, str], int]:
    """How many free functions of each name each crate has."""
    counts: dict[tuple[str, str], int] = {}
    for fn in functions.values():
        if fn["owner"] is None:
            key = (fn["module"].split("::")[0], fn["name"])
            counts[key] = counts.get(key, 0) + 1
    return counts


def _constructed_fields(
    receiver: str, fn: dict[str, Any], table: ConfigTable
) -> dict[str, str] | None:
    """`XConfig::new(a, b).with_c(d)`: each field's Rust value (required fields from `new` in
    order, `with_` builders, burn's defaults, `None` for Options); None when not a config."""
    config = table.config(fn.get("public"))
    found = re.match(r"^(?:\w+::)*[A-Z]\w*::new\((.*?)\)((?:\.with_\w+\(.*\))*)$", receiver, re.S)
    if config is None or found is None:
        return None
    args = split_args(found.group(1))
    required = config.required
    if len(args) != len(required):
        return None
    fields: dict[str, str] = {}
    for f in config.fields:
        if f.option:
            fields[f.name] = "None"
        elif f.default is not None:
            fields[f.name] = f.default
    fields.update({f.name: a for f, a in zip(required, args, strict=True)})
    for name, value in re.findall(r"\.with_(\w+)\((.*?)\)(?=\.with_|$)", found.group(2), re.S):
        if name not in fields and config.field(name) is None:
            return None
        fields[name] = value
    return fields


def _self_fields(text: str, fields: dict[str, str]) -> str:
    def repl(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in fields:
            raise Unmapped(f"the field `self.{name}` of a config built in burn")
        return f"({fields[name]})"

    return re.sub(r"(?<![\w.])self\.(\w+)\b(?!\s*\()", repl, text)


def _subst_self_fields(item: tuple[str, ...], fields: dict[str, str]) -> tuple[str, ...]:
    kind = item[0]
    if kind in ("for", "iflet", "else-let"):
        return (kind, item[1], _self_fields(item[2], fields))
    if kind == "arm":
        return (kind, _self_fields(item[1], fields), *item[2:])
    return (kind, *(_self_fields(t, fields) for t in item[1:]))


def _lift(
    chain: _Chain,
    caller_key: str,
    call: dict[str, Any],
    functions: dict[str, Any],
    table: ConfigTable,
) -> _Chain:
    fn = functions[chain.fn]
    caller = functions[caller_key]
    names = [p[0] for p in fn["params"]]
    args = [a.removeprefix("&").removeprefix("mut ") for a in call["args"]]
    mapping = dict(zip(names, args, strict=False))
    by_path = not str(call["callee"]).startswith("self.")
    if fn["self"] is not None and "receiver" in call:
        fields = _constructed_fields(call["receiver"], fn, table)
        if fields is None:
            raise Unmapped(f"the receiver `{call['receiver']}`")
        items = [_subst_self_fields(i, fields) for i in chain.items]
        holes = [_self_fields(h, fields) for h in chain.holes]
        chain = _Chain(chain.fn, tuple(items), tuple(holes))
    elif fn["self"] is not None and by_path and len(args) == len(names) + 1:
        # `Type::method(receiver, ..)`: the first argument is self
        mapping = dict(zip(names, args[1:], strict=False))
        mapping["self"] = args[0]
    items = [tuple(p) for p in call["path"]] + [_subst_item(i, mapping) for i in chain.items]
    holes = [_substitute(h, mapping) for h in chain.holes]
    _inline_lets(caller, items, holes, call["line"])
    return _Chain(caller_key, tuple(items), tuple(holes))


def _entry_path(fn: dict[str, Any], table: ConfigTable) -> tuple[str, str] | None:
    """The public path of `fn` and its kind, when users can call it; else None."""
    if fn["vis"] not in ("pub", "trait"):
        return None
    owner = fn["owner"]
    public = fn.get("public")
    if owner is None:
        return (public, "function") if public else None
    if fn["trait"] is not None and fn["trait"] != owner:
        return None  # a trait impl: the trait's method is called through the type, not followed
    if public is None:
        return None
    config = table.config(public)
    if config is not None:
        return f"{config.path}::{fn['name']}", "config"
    module = table.modules.get(public)
    if module is not None:
        return f"{public}::{fn['name']}", "module"
    return f"{public}::{fn['name']}", "method"


def _config_path(owner: str, table: ConfigTable) -> str | None:
    found = [key for key in table.configs if key.rsplit("::", 1)[-1] == owner]
    return sorted(found)[0] if found else None


def _entries(
    start: _Chain, functions: dict[str, Any], table: ConfigTable
) -> tuple[list[tuple[_Chain, str, str]], list[str]]:
    """Every public entry reached from `start` (chain in the entry's scope, path, kind), and
    why other paths stopped."""
    out: list[tuple[_Chain, str, str]] = []
    stops: list[str] = []
    frontier = [(start, 0, frozenset({start.fn}))]
    while frontier:
        chain, depth, seen = frontier.pop(0)
        fn = functions[chain.fn]
        entry = _entry_path(fn, table)
        if entry is not None:
            out.append((chain, *entry))
            if len(out) >= MAX_ENTRIES:
                break
        if depth >= MAX_DEPTH:
            stops.append(f"{_show(fn)}: callers deeper than {MAX_DEPTH} calls")
            continue
        callers = list(_callers(chain.fn, functions))
        if not callers and entry is None and not out:
            stops.append(f"{_show(fn)} ({fn['vis'] or 'private'}) has no caller that is public")
        for key, call in callers:
            if key in seen:
                continue
            try:
                lifted = _lift(chain, key, call, functions, table)
            except Unmapped as exc:
                stops.append(f"{_show(functions[key])}: {exc}")
                continue
            frontier.append((lifted, depth + 1, seen | {key}))
    return out, stops


def _module_fields(call: str, kind: str, table: ConfigTable) -> frozenset[str]:
    if kind != "module":
        return frozenset()
    config = table.config(table.modules.get(call.rsplit("::", 1)[0]))
    return frozenset(f.name for f in config.fields) if config else frozenset()


def _show(fn: dict[str, Any]) -> str:
    return (f"{fn['owner']}::" if fn["owner"] else "") + fn["name"]


# -- Rust expression -> CEL ------------------------------------------------------------------


class _Scope:
    """How names of the entry's Rust scope read in the rule language."""

    def __init__(
        self,
        kind: str,
        params: list[str],
        self_tensor: bool,
        config_fields: frozenset[str],
        ranks: dict[str, str] | None = None,
    ) -> None:
        self.kind = kind
        self.names: dict[str, str] = {p: p for p in params}
        self.self_tensor = self_tensor
        # a const generic that is a tensor's rank (`D` of `self` or of `x: Tensor<D>`): its size
        self.ranks = dict(ranks or {})
        if self_tensor:
            self.ranks["D"] = "receiver.rank"
        # a module's `self.f` is its config's `f` (the module `init` made keeps it)
        self.config_fields = config_fields


_INT = re.compile(r"^(\d[\d_]*)(?:_?(?:u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize))?$")
_FLOAT = re.compile(r"^(\d[\d_]*)(\.[\d_]*)?([eE][+-]?\d+)?(?:_?f(?:32|64))?$")
_PASS_METHODS = frozenset(
    {"iter", "as_ref", "clone", "to_vec", "as_slice", "into_iter", "copied", "cloned", "to_owned",
     "borrow", "as_deref", "into"}
)  # fmt: skip
_INT_TYPES = frozenset(
    {"usize", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "isize", "u128", "i128"}
)


@lru_cache(maxsize=4096)
def _expr_tree(text: str) -> Node | None:
    from panic_lens.rust.syntax import parse

    tree = parse(f"fn __f() {{ let __x = {text}; }}".encode())
    found = tree.root_node
    stack = [found]
    while stack:
        node = stack.pop()
        if node.type == "let_declaration":
            value = node.child_by_field_name("value")
            if value is not None and not value.has_error and not tree.root_node.has_error:
                return value
            return None
        stack.extend(node.named_children)
    return None


class _Translator:
    def __init__(self, scope: _Scope) -> None:
        self.scope = scope

    def expr(self, text: str, bound: dict[str, str] | None = None) -> str:
        node = _expr_tree(text)
        if node is None:
            raise Unmapped(f"`{text}` (not an expression panic-lens reads)")
        src = f"fn __f() {{ let __x = {text}; }}".encode()
        return self.node(node, src, dict(bound or {}))

    def node(self, node: Node, src: bytes, bound: dict[str, str]) -> str:
        kind = node.type
        text = src[node.start_byte : node.end_byte].decode()
        if kind == "parenthesized_expression":
            return f"({self.node(node.named_children[0], src, bound)})"
        if kind == "binary_expression":
            op = node.child_by_field_name("operator")
            op_text = src[op.start_byte : op.end_byte].decode() if op else "?"
            if op_text not in (
                "&&",
                "||",
                "==",
                "!=",
                "<",
                "<=",
                ">",
                ">=",
                "+",
                "-",
                "*",
                "/",
                "%",
            ):
                raise Unmapped(f"the operator `{op_text}`")
            left = self.node(node.child_by_field_name("left"), src, bound)  # type: ignore[arg-type]
            right = self.node(node.child_by_field_name("right"), src, bound)  # type: ignore[arg-type]
            return f"{left} {op_text} {right}"
        if kind == "unary_expression":
            inner = self.node(node.named_children[0], src, bound)
            if text.startswith("!"):
                return f"!({inner})"
            if text.startswith("-"):
                return f"-{inner}"
            if text.startswith("*"):
                return inner
            raise Unmapped(f"`{text}`")
        if kind == "reference_expression":
            return self.node(node.named_children[-1], src, bound)
        if kind == "integer_literal":
            found = _INT.match(text)
            if not found:
                raise Unmapped(f"the literal `{text}`")
            return found.group(1).replace("_", "")
        if kind == "float_literal":
            found = _FLOAT.match(text)
            if not found:
                raise Unmapped(f"the literal `{text}`")
            whole, frac, exp = found.group(1), found.group(2) or ".", found.group(3) or ""
            frac = frac if len(frac) > 1 else ".0"
            return f"{whole.replace('_', '')}{frac.replace('_', '')}{exp}"
        if kind == "boolean_literal":
            return text
        if kind == "string_literal":
            return text
        if kind == "identifier":
            if text in bound:
                return bound[text]
            if text in self.scope.names:
                return self.scope.names[text]
            if text in self.scope.ranks:
                return self.scope.ranks[text]  # a tensor's rank
            if text.isupper():
                raise Unmapped(f"the constant `{text}`")
            if text == "None":
                return "null"
            raise Unmapped(f"the local value `{text}`")
        if kind == "self":
            if self.scope.self_tensor:
                return "receiver"
            raise Unmapped("`self` as a whole value")
        if kind == "field_expression":
            value = node.child_by_field_name("value")
            name = node.child_by_field_name("field")
            assert value is not None and name is not None
            field_text = src[name.start_byte : name.end_byte].decode()
            if value.type == "self" and self.scope.kind in ("config", "module"):
                if self.scope.kind == "module" and field_text not in self.scope.config_fields:
                    raise Unmapped(f"the module's field `self.{field_text}` (not its config's)")
                return f"config.{field_text}"
            base = self.node(value, src, bound)
            if field_text.isdigit():
                return f"{base}[{field_text}]"
            raise Unmapped(
                f"the field `.{field_text}` of `{src[value.start_byte : value.end_byte].decode()}`"
            )
        if kind == "array_expression":
            if any(c.type == ";" for c in node.children):
                raise Unmapped(f"the repeated array `{text}`")
            parts = [c for c in node.named_children if "comment" not in c.type]
            return f"[{', '.join(self.node(c, src, bound) for c in parts)}]"
        if kind == "index_expression":
            parts = node.named_children
            base = self.node(parts[0], src, bound)
            index = self.node(parts[1], src, bound)
            return f"{base}[{index}]"
        if kind == "scoped_identifier":
            name = node.child_by_field_name("name")
            path = node.child_by_field_name("path")
            last = src[name.start_byte : name.end_byte].decode() if name else text
            owner = src[path.start_byte : path.end_byte].decode() if path else ""
            if last[:1].isupper() and owner.rsplit("::", 1)[-1][:1].isupper():
                return json.dumps(last)  # an enum variant: its name
            raise Unmapped(f"the path `{text}`")
        if kind == "call_expression":
            return self.call(node, src, bound, text)
        if kind == "macro_invocation":
            return self.macro(node, src, bound, text)
        if kind == "type_cast_expression":
            value = node.child_by_field_name("value")
            type_ = node.child_by_field_name("type")
            type_text = src[type_.start_byte : type_.end_byte].decode() if type_ else ""
            inner = self.node(value, src, bound)  # type: ignore[arg-type]
            if type_text in ("f32", "f64"):
                return f"double({inner})"
            if type_text in _INT_TYPES:
                return f"int({inner})"
            raise Unmapped(f"the cast `as {type_text}`")
        raise Unmapped(f"`{text}` ({kind.replace('_', ' ')})")

    def call(self, node: Node, src: bytes, bound: dict[str, str], text: str) -> str:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if function is not None and function.type == "identifier":
            name = src[function.start_byte : function.end_byte].decode()
            if name == "Some" and len(args) == 1:
                return self.node(args[0], src, bound)
            if name == "unwrap_dim_index" and len(args) == 2:
                # burn-tensor's dim wrapping: a negative dim counts from the end (an out of
                # range one panics with its own message first)
                found = _DIM_INDEX.fullmatch(src[args[0].start_byte : args[0].end_byte].decode())
                if found and found.group(2) in self.scope.ranks:
                    dim = self.expr(found.group(1), bound)
                    return _from_start(dim, self.scope.ranks[found.group(2)])
            raise Unmapped(f"the call `{name}(..)`")
        if function is None or function.type != "field_expression":
            raise Unmapped(f"the call `{text}`")
        method_node = function.child_by_field_name("field")
        receiver = function.child_by_field_name("value")
        assert method_node is not None and receiver is not None
        method = src[method_node.start_byte : method_node.end_byte].decode()
        if method == "contains" and len(args) == 1:
            inner = receiver
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            value = self.node(args[0], src, bound)
            if inner.type == "range_expression":
                ends = inner.named_children
                rtext = src[inner.start_byte : inner.end_byte].decode()
                if len(ends) != 2:
                    raise Unmapped(f"the open range `{rtext}`")
                lo, hi = (self.node(e, src, bound) for e in ends)
                upper = "<=" if "..=" in rtext else "<"
                return f"({lo} <= {value} && {value} {upper} {hi})"
            return f"({value} in {self.node(receiver, src, bound)})"
        base = self.node(receiver, src, bound) if method != "dims" else None
        if method in _PASS_METHODS and not args:
            return base  # type: ignore[return-value]
        if method == "is_multiple_of" and len(args) == 1:
            return f"({base} % {self.node(args[0], src, bound)} == 0)"
        if method == "len" and not args:
            return f"size({base})"
        if method == "is_empty" and not args:
            return f"(size({base}) == 0)"
        if method == "is_some" and not args:
            return f"({base} != null)"
        if method == "is_none" and not args:
            return f"({base} == null)"
        if method == "unwrap_or" and len(args) == 1:
            other = self.node(args[0], src, bound)
            return f"({base} != null ? {base} : {other})"
        if method == "abs" and not args:
            return f"({base} < 0 ? -{base} : {base})"
        if method in ("min", "max") and len(args) == 1:
            other = self.node(args[0], src, bound)
            op = "<=" if method == "min" else ">="
            return f"({base} {op} {other} ? {base} : {other})"
        if method == "is_power_of_two" and not args:
            return f"({base} in [{', '.join(str(1 << i) for i in range(63))}])"
        if method == "is_sign_negative" and not args:
            return f"({base} < 0.0)"
        if method == "is_sign_positive" and not args:
            return f"({base} >= 0.0)"
        if method in ("dims", "shape") and not args:
            tensor = self.node(receiver, src, bound)
            while tensor.startswith("(") and tensor.endswith(")"):
                tensor = tensor[1:-1]
            if tensor != "receiver" and tensor not in self.scope.names.values():
                raise Unmapped(
                    f"the shape of `{src[receiver.start_byte : receiver.end_byte].decode()}`"
                )
            return f"{tensor}.dims"
        if method == "num_elements" and not args and base is not None:
            shape = base
            while shape.startswith("(") and shape.endswith(")") and _balanced(shape[1:-1]):
                shape = shape[1:-1]
            if shape.endswith(".dims"):
                return f"{shape.removesuffix('.dims')}.numel"  # a known shape's product
        if method in ("all", "any") and len(args) == 1 and args[0].type == "closure_expression":
            params = args[0].child_by_field_name("parameters")
            body = args[0].child_by_field_name("body")
            names = (
                re.findall(r"\w+", src[params.start_byte : params.end_byte].decode())
                if params
                else []
            )
            if len(names) != 1 or body is None:
                raise Unmapped(f"the closure of `.{method}(..)`")
            var = names[0]
            test = self.node(body, src, {**bound, var: var})
            cel_macro = "all" if method == "all" else "exists"
            return f"{base}.{cel_macro}({var}, {test})"
        raise Unmapped(f"the method `.{method}(..)`")

    def macro(self, node: Node, src: bytes, bound: dict[str, str], text: str) -> str:
        found = re.match(r"^matches!\s*\((.*)\)$", text, re.S)
        if not found:
            raise Unmapped(f"the macro `{text.split('!', 1)[0]}!`")
        args = split_args(found.group(1))
        if len(args) != 2:
            raise Unmapped("`matches!` with a guard")
        value = self.expr(args[0], bound)
        return self.pattern(value, args[1])

    def pattern(self, value: str, pattern: str) -> str:
        alternatives = [p.strip() for p in pattern.split("|")]
        out = []
        for alt in alternatives:
            bare = re.sub(r"\s*(\{\s*\.\.\s*\}|\(\s*\.\.\s*\))$", "", alt)
            if bare == "None":
                out.append(f"{value} == null")
            elif re.fullmatch(r"(?:\w+::)*[A-Z]\w*::[A-Z]\w*", bare):
                out.append(f"{value} == {json.dumps(bare.rsplit('::', 1)[-1])}")
            else:
                raise Unmapped(f"the pattern `{alt}`")
        return out[0] if len(out) == 1 else "(" + " || ".join(out) + ")"


_KINDS = frozenset({"Float", "Int", "Bool", "K"})


def _tensor_ranks(params: list[list[str]]) -> dict[str, str]:
    """The rank generics of a function's tensor parameters: `x: Tensor<D>` (burn 0.22,
    `Tensor<D, Int>`) or `Tensor<B, D>` (0.21) makes `D` `x`'s rank."""
    ranks: dict[str, str] = {}
    for name, type_ in params:
        generic = _rank_generic(type_)
        if generic is not None and re.fullmatch(r"[a-z_]\w*", name):
            ranks.setdefault(generic, f"{name}.rank")
    return ranks


def _result_rank(fn: dict[str, Any]) -> str | None:
    """The rank generic of the tensor `fn` returns: `D` of a Tensor function returning `Self`
    (`Tensor::<D>::ones`), `D2` of `-> Tensor<D2>` (`flatten::<D2>`); the language reads it
    as `result.rank`, the rank the caller's code states for the value."""
    returns = str(fn.get("returns") or "")
    if returns == "Self":
        return "D" if fn["owner"] == "Tensor" else None
    return _rank_generic(returns)


def _rank_generic(type_text: str) -> str | None:
    """The const generic naming a Tensor type's rank (`D` of `Tensor<D, Int>` or of
    `Tensor<B, D>`), None for another type or a rank written as a number."""
    args = tensor_type_args(type_text)
    if args is None:
        return None
    if len(args) >= 2 and args[0] == "B":
        args = args[1:]
    if args and re.fullmatch(r"[A-Z]\w*", args[0]) and args[0] not in _KINDS:
        return args[0]
    return None


def _tuple_parts(text: str) -> list[str]:
    """`(a, b)` -> [a, b]; anything else is one value."""
    inner = text.strip()
    while inner.startswith("(") and inner.endswith(")") and _balanced(inner[1:-1]):
        parts = split_args(inner[1:-1])
        if len(parts) > 1:
            return parts
        inner = inner[1:-1].strip()
    return [text]


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def _match(translator: _Translator, values: list[str], pattern: str) -> tuple[str, dict[str, str]]:
    """The condition under which `values` match `pattern` ("" when always) and the names
    the pattern binds; a tuple pattern matches element by element."""
    pats = _tuple_parts(pattern) if len(values) > 1 else [pattern.strip()]
    if len(pats) != len(values):
        raise Unmapped(f"the pattern `{pattern}`")
    conds: list[str] = []
    binds: dict[str, str] = {}
    for value, pat in zip(values, pats, strict=True):
        pat = pat.strip()
        some = re.fullmatch(r"Some\(\s*(?:ref\s+)?(\w+)\s*\)", pat)
        if pat == "_":
            continue
        if some:
            conds.append(f"{value} != null")
            if some.group(1) != "_":
                binds[some.group(1)] = value
        elif re.fullmatch(r"[a-z_]\w*", pat):
            binds[pat] = value
        else:
            conds.append(translator.pattern(value, pat))
    return " && ".join(conds), binds


# `dim.try_dim_index(D)` (a Result) or `dim.expect_dim_index(D)`: burn-tensor's dim, in [-D, D)
_DIM_INDEX = re.compile(
    r"\(?\s*(.+?)\.(?:try_dim_index|expect_dim_index)\(\s*(\w+)\s*\)\s*\)?", re.S
)


def _from_start(dim: str, rank: str) -> str:
    """A dim in [-rank, rank) counted from the start: a negative one counts from the end."""
    return f"({dim} < 0 ? {dim} + {rank} : {dim})"


def _dim_index_arm(
    translator: _Translator, values: list[str], pattern: str, bound: dict[str, str]
) -> tuple[str, dict[str, str]] | None:
    """`match dim.try_dim_index(D) { Ok(d) => .., Err(e) => .. }`, burn-tensor's dim check:
    `Err` when the dim is outside [-D, D) (a negative one counts from the end), `Ok(d)` binds
    the dim counted from the start. None for other matches."""
    found = _DIM_INDEX.fullmatch(values[0].strip()) if len(values) == 1 else None
    ok = re.fullmatch(r"Ok\(\s*(\w+)\s*\)", pattern)
    if found is None or not (ok or re.fullmatch(r"Err\(\s*\w+\s*\)", pattern)):
        return None
    rank = translator.scope.ranks.get(found.group(2))
    if rank is None:
        raise Unmapped(f"the rank `{found.group(2)}` (not a tensor's)")
    dim = translator.expr(found.group(1), bound)
    inside = f"(-{rank} <= {dim} && {dim} < {rank})"
    if not ok:
        return f"!{inside}", {}
    name = ok.group(1)
    binds = {} if name == "_" else {name: _from_start(dim, rank)}
    return inside, binds


def _cel(items: tuple[tuple[str, ...], ...], translator: _Translator, bound: dict[str, str]) -> str:
    """The conjunction of the path items (a `for` wraps what follows in `.exists`)."""
    parts: list[str] = []
    for position, item in enumerate(items):
        kind = item[0]
        if kind == "if":
            parts.append(f"({translator.expr(item[1], bound)})")
        elif kind == "else":
            parts.append(f"!({translator.expr(item[1], bound)})")
        elif kind == "for":
            var = item[1].lstrip("&").strip()
            if not re.fullmatch(r"[a-z_]\w*", var):
                raise Unmapped(f"the loop pattern `{item[1]}`")
            iterable = translator.expr(item[2], bound)
            rest = _cel(items[position + 1 :], translator, {**bound, var: var}) or "true"
            parts.append(f"{iterable}.exists({var}, {rest})")
            return " && ".join(parts)
        elif kind == "iflet":
            found = re.fullmatch(r"Some\(\s*(?:ref\s+)?(\w+)\s*\)", item[1])
            value = translator.expr(item[2], bound)
            if found:
                parts.append(f"{value} != null")
                bound = {**bound, found.group(1): value}
            else:
                parts.append(translator.pattern(value, item[1]))
        elif kind == "arm":
            values = _tuple_parts(item[1])
            checked = _dim_index_arm(translator, values, item[2].strip(), bound)
            if checked is not None:
                parts.append(checked[0])
                bound = {**bound, **checked[1]}
                continue
            cels = [translator.expr(v, bound) for v in values]
            pattern = item[2].strip()
            if pattern == "_" or re.fullmatch(r"[a-z_]\w*", pattern):
                # a catch-all: none of the earlier arms matched (and it may bind the value)
                for earlier in item[3:]:
                    cond, _ = _match(translator, cels, earlier)
                    parts.append(f"!({cond})" if cond else "false")
                if pattern != "_" and len(cels) == 1:
                    bound = {**bound, pattern: cels[0]}
            else:
                cond, binds = _match(translator, cels, pattern)
                if cond:
                    parts.append(cond)
                bound = {**bound, **binds}
        elif kind == "opaque":
            raise Unmapped(f"a panic in {item[1]} (it may not run)")
        else:
            raise Unmapped(f"`{' '.join(item)}`")
    return " && ".join(parts)


# -- the rule ----------------------------------------------------------------------------------


def derive(
    record: Record,
    guards: dict[str, Any],
    configs: ConfigTable,
    rule_id: str | None = None,
) -> Derived | NotDerived:
    """The rule checking `record`'s panic at the public calls that reach it, or why not."""
    return _Deriver(guards, configs).derive(record, rule_id)


@dataclass(frozen=True, slots=True)
class _AtSite:
    """A panic site's derivation, before a record's id (and message) is written in."""

    entries: list[_Entry]
    fires: str | None
    fn: dict[str, Any]
    panic: dict[str, Any]
    burn_message: str | None
    where: str  # `file:line`


class _Deriver:
    """Deriving records against one guards index and config table. Each panic site is derived
    once (the walk up the call graph and the translation are the site's, not the record's);
    with `share`, records that resolve to one site and would write the same rule (burn's
    message, or where burn's panic has none an errorMessage the same but for its values,
    `_values_out`) share the first one's."""

    def __init__(self, guards: dict[str, Any], configs: ConfigTable) -> None:
        self.guards = guards
        self.functions: dict[str, Any] = guards.get("functions", {})
        self.configs = configs
        self.sites: dict[_Site, _AtSite | NotDerived] = {}
        self.rules: dict[tuple[_Site, str | None], Derived | NotDerived] = {}

    def derive(
        self, record: Record, rule_id: str | None = None, share: bool = False
    ) -> Derived | NotDerived:
        site = find_site(record, self.guards)
        if isinstance(site, NotDerived):
            return site
        at = self.sites.get(site)
        if at is None:
            at = self.sites[site] = _derive_site(site, self.functions, self.configs)
        if isinstance(at, NotDerived):
            return at
        if not share:
            return _rule(record, at, rule_id)
        key = (site, None if at.burn_message else _values_out(record.panic.error_message))
        found = self.rules.get(key)
        if found is None:
            found = self.rules[key] = _rule(record, at, rule_id)
        return found


# What a record's message says about its panic, without the values it was raised with
_VALUES = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _values_out(message: str | None) -> str | None:
    """`message` with its numbers and quoted values made `{}`: records of one panic site
    whose messages differ only in the values raised (`dimension 5` / `dimension 7`, the
    operation's name) share a rule."""
    return _VALUES.sub("{}", message) if message else message


def _derive_site(
    site: _Site, functions: dict[str, Any], configs: ConfigTable
) -> _AtSite | NotDerived:
    fn = functions[site.fn_key]
    panic = fn["panics"][site.index]
    where_text = f"{fn['file']}:{panic['line']}"
    try:
        start = _initial_chain(site, functions)
    except Unmapped as exc:
        return NotDerived(f"{where_text}: {exc}", CONSTRUCT)
    entries, stops = _entries(start, functions, configs)
    for other in _same_check(site, functions):  # the check's other callers raise the same panic
        if len(entries) >= MAX_ENTRIES:
            break
        try:
            more, _ = _entries(_initial_chain(other, functions), functions, configs)
        except Unmapped:
            continue  # a caller whose arguments are not read: its calls are left unchecked
        entries += more[: MAX_ENTRIES - len(entries)]
    if not entries:
        why = "; ".join(dict.fromkeys(stops)) or "no public caller"
        return NotDerived(f"{where_text}: {why}", NOT_PUBLIC)
    built: list[_Entry] = []
    problems: list[str] = []
    for chain, call, kind in entries:
        entry_fn = functions[chain.fn]
        params = [p[0] for p in entry_fn["params"]]
        # `D` of a Tensor method with a receiver is the receiver's rank (not `cat`'s or `stack`'s)
        tensor_self = kind == "method" and entry_fn["owner"] == "Tensor" and bool(entry_fn["self"])
        fields = _module_fields(call, kind, configs)
        ranks = _tensor_ranks(entry_fn["params"])
        result = _result_rank(entry_fn)
        if result is not None and not (tensor_self and result == "D"):
            ranks.setdefault(result, "result.rank")
        translator = _Translator(_Scope(kind, params, tensor_self, fields, ranks))
        try:
            condition = _cel(chain.items, translator, {})
        except Unmapped as exc:
            problems.append(f"{call}: {exc}")
            continue
        holes: list[str | None] = []
        for hole in chain.holes:
            try:
                holes.append(translator.expr(hole))
            except Unmapped:
                holes.append(None)
        if condition and not _reads(condition, {"config", "receiver", "result", *params}):
            problems.append(f"{call}: the condition reads no value a call shows")
            continue
        generics = entry_fn.get("generics") or []
        position = generics.index(result) if result in generics else None
        built.append(_Entry(call, kind, params, condition, holes, position))
    fires = _at_config_init(built, configs)
    built = _merge_same_calls(built)
    if not built:
        reason = "; ".join(dict.fromkeys(problems))
        kind = NOT_VISIBLE if all("reads no value" in p for p in problems) else CONSTRUCT
        return NotDerived(f"{where_text}: {reason}", kind)
    burn_message = panic.get("message")
    if site.check is not None:
        burn_message = _check_functions(functions)[site.check[0]]["panics"][site.check[1]][
            "message"
        ]
    return _AtSite(built, fires, fn, panic, burn_message, where_text)


def _rule(record: Record, at: _AtSite, rule_id: str | None) -> Derived | NotDerived:
    """The site's rule, written for `record` (its id; its message where burn's has none)."""
    text = derived_toml(
        record, at.entries, at.fn, at.panic, rule_id or f"derived-{record.id}", at.fires,
        at.burn_message,
    )  # fmt: skip
    try:
        spec = parse_rule(text.encode(), f"<derived from record {record.id}>")
    except RuleFileError as exc:
        return NotDerived(f"{at.where}: the derived rule does not read: {exc}", CONSTRUCT)
    return Derived(spec, text, at.where)


def _reads(condition: str, names: set[str]) -> bool:
    """Whether the condition reads one of `names` (a value some call may show)."""
    body = re.sub(r'"(?:[^"\\]|\\.)*"', '""', condition)
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b(?!\s*\()", body) for n in names)


def _at_config_init(entries: list[_Entry], table: ConfigTable) -> str | None:
    """A module method whose panic depends on its config's fields only panics later than the
    call that fixes them: it is reported at the config's `init` (which made the module), and
    the rule says when burn panics."""
    later: list[str] = []
    for entry in entries:
        if entry.kind != "module" or not entry.condition:
            continue
        module, method = entry.call.rsplit("::", 1)
        config = table.modules.get(module)
        if config is None or not _reads(entry.condition, {"config"}):
            continue
        if _reads(entry.condition, {"receiver", *entry.params}):
            continue
        entry.call, entry.kind = f"{config}::init", "config"
        entry.holes = [
            h if h is not None and not _reads(h, {"receiver", *entry.params}) else None
            for h in entry.holes
        ]
        entry.params = []
        later.append(f"{module.rsplit('::', 1)[-1]}::{method}")
    if not later:
        return None
    return f"at the first {' or '.join(sorted(set(later)))} call"


def _merge_same_calls(entries: list[_Entry]) -> list[_Entry]:
    """One entry per public call: two ways from one call to the panic are `||`ed (the
    message's values are kept only where both ways give the same ones)."""
    out: dict[str, _Entry] = {}
    for entry in entries:
        seen = out.get(entry.call)
        if seen is None:
            out[entry.call] = entry
            continue
        if entry.condition != seen.condition:
            if not entry.condition or not seen.condition:
                seen.condition = ""  # one way panics unconditionally
            else:
                seen.condition = f"({seen.condition}) || ({entry.condition})"
        seen.holes = [a if a == b else None for a, b in zip(seen.holes, entry.holes, strict=False)]
    return list(out.values())


def _q(text: str) -> str:
    return json.dumps(text)


def derived_toml(
    record: Record,
    entries: list[_Entry],
    fn: dict[str, Any],
    panic: dict[str, Any],
    rule_id: str,
    fires: str | None = None,
    burn_message: str | None = None,
) -> str:
    """The rule file's text (what `records derive` prints and the registry reads)."""
    burn_message = burn_message or ""
    hole_names = [f"v{i}" for i in range(len(entries[0].holes))]
    if burn_message:
        message = _fill_named(burn_message, hole_names, entries)
    else:
        plain = re.sub(
            r"^assertion `left (==|!=) right` failed: |^not implemented: ",
            "",
            record.panic.error_message,
        ).strip()
        message = _fill_holes(plain, [], entries)
    shown = message.replace("{{", "\x00").replace("}}", "\x01")
    shown = re.sub(r"\{[^{}]*\}", "…", shown).replace("\x00", "{").replace("\x01", "}")
    title = (shown.strip().splitlines() or [""])[0][:100] or f"burn panic {record.id}"
    literal = next(
        (p.strip() for p in re.split(r"\{[^{}]*\}", burn_message) if len(p.strip()) >= 4), ""
    )
    literal = (literal or title).replace("{", "").replace("}", "").replace("…", "").strip()
    guard = _quoted_guard(panic) or literal
    conditions = {e.condition for e in entries}
    shared = len(conditions) == 1
    calls = ", ".join(
        sorted({e.call.rsplit("::", 2)[-2] + "::" + e.call.rsplit("::", 1)[-1] for e in entries})
    )
    summary = f"{calls} panics in burn ({fn['file']}:{panic['line']}): {title}"
    lines = [
        f"id = {_q(rule_id)}",
        f"title = {_q(title)}",
        f"summary = {_q(summary)}",
        'severity = "error"',
        f"derived_from = {_q(record.id)}",
        *([f"fires = {_q(fires)}"] if fires else []),
        "",
        "[[panic_site]]",
        f"file = {_q(fn['file'])}",
        f"guard = {_q(guard)}",
        f"message = {_q(literal.replace('{', '').replace('}', ''))}",
        f"line = {panic['line']}",
    ]
    for entry in sorted(entries, key=lambda e: e.call):
        lines += ["", "[[where]]", f"call = {_q(entry.call)}"]
        if entry.params:
            lines.append(f"args = [{', '.join(_q(p) for p in entry.params)}]")
        if entry.result_generic is not None and _reads(
            " ".join([entry.condition, *filter(None, entry.holes)]), {"result"}
        ):
            lines.append(f"result_generic = {entry.result_generic}")
        lets: list[tuple[str, str]] = []
        if not shared:
            lets.append(("fires", entry.condition or "true"))
        for name, hole in zip(hole_names, entry.holes, strict=False):
            if hole is not None:
                lets.append((name, hole))
        if lets:
            lines.append("[where.let]")
            lines += [f"{name} = {_q(expr)}" for name, expr in lets]
    condition = next(iter(conditions)) if shared else "fires"
    filled = message
    lines += ["", "[when]"]
    if condition:
        lines.append(f"condition = {_q(condition)}")
    lines.append(f"message = {_q(filled)}")
    return "\n".join(lines) + "\n"


def _quoted_guard(panic: dict[str, Any]) -> str:
    """A fragment of burn's panic line as written, for `[[panic_site]] guard` (records bind by
    it): the assert's condition, the `if` a panic sits in, the TensorCheck called."""
    kind = panic["kind"]
    if kind == "check":
        return f"TensorCheck::{panic['check']}"
    guard = str(panic.get("guard") or "")
    if kind == "assert":
        return re.sub(r"^!\((.*)\)$", r"\1", guard, flags=re.S)
    if kind in ("assert_eq", "assert_ne"):
        first = split_args(guard.replace(" != ", ", ", 1).replace(" == ", ", ", 1))[0]
        return first[1:-1] if first.startswith("(") and first.endswith(")") else first
    ifs = [p[1] for p in panic.get("path", ()) if p[0] == "if"]
    return ifs[-1] if ifs else ""


def _fill_named(template: str, names: list[str], entries: list[_Entry]) -> str:
    """burn's format string with its named holes (`{dim}`, `{x:?}`) as `{v<i>}` where every
    entry maps the value, `…` elsewhere (positional `{}` holes too)."""
    known = [all(e.holes[i] is not None for e in entries) for i in range(len(names))]
    index = iter(range(len(names)))

    def repl(found: re.Match[str]) -> str:
        if found.group(0) in ("{{", "}}"):
            return found.group(0)
        name = found.group(1)
        if not name or name.isdigit():
            return "…"
        i = next(index, None)
        return "{" + names[i] + "}" if i is not None and known[i] else "…"

    return re.sub(r"\{\{|\}\}|\{(\w*)(?::[^{}]*)?\}", repl, template)


def _fill_holes(message: str, names: list[str], entries: list[_Entry]) -> str:
    """The record's message with its `{}` holes as `{v<i>}` where every entry maps the value."""
    known = [all(e.holes[i] is not None for e in entries) for i in range(len(names))]
    holes = iter(range(len(names)))
    positional = message.count("{}")

    def repl(_: re.Match[str]) -> str:
        index = next(holes, None)
        if index is None or positional != len(names) or not known[index]:
            return "…"
        return "{" + names[index] + "}"

    escaped = message.replace("{", "\x00").replace("}", "\x01").replace("\x00\x01", "{}")
    escaped = re.sub(r"\{\}", repl, escaped)
    return escaped.replace("\x00", "{{").replace("\x01", "}}")


# -- records -> registered rules ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Covered:
    """A hand-written rule's panic site is the record's: that rule wins."""

    rules: tuple[str, ...]


Outcome = Derived | NotDerived | Covered


def guards_files() -> list[Path]:
    return sorted(DATA_DIR.glob("burn-*.guards.json.gz"))


@lru_cache(maxsize=1)
def shipped_guards() -> dict[str, Any]:
    """The newest shipped guards index (`{"functions": {}}` when none is shipped)."""
    files = guards_files()
    if not files:
        return {"functions": {}}
    return read_guards(files[-1])


@lru_cache(maxsize=1)
def _shipped_guards_print() -> str:
    files = guards_files()
    return hashlib.sha256(files[-1].read_bytes()).hexdigest() if files else "no-guards"


@lru_cache(maxsize=1)
def _shipped_table_print() -> str:
    """The shipped config table's file bytes key the cache (it is read only to derive)."""
    from panic_lens.rules.language.configs import index_files

    files = index_files()
    return hashlib.sha256(files[-1].read_bytes()).hexdigest() if files else "no-configs"


def read_guards(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        raise ValueError(f"{path}: functions: missing or not an object")
    return data


def _fingerprint(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


_MEMO: dict[str, dict[str, Outcome]] = {}
_GUARDS_PRINTS: dict[int, str] = {}


def derive_all(
    records: Iterable[Record],
    guards: dict[str, Any] | None = None,
    table: ConfigTable | None = None,
    hand_rules: Iterable[RuleInfo] | None = None,
    files_print: str | None = None,
) -> dict[str, Outcome]:
    """Each record's outcome: covered by a hand-written rule (shipped or added), a derived
    rule, or why not. Cached by a content hash of the records' panic halves (or, when the
    records are exactly what the loader read from files, its `files_print`), the guards
    index, the config table and the hand-written rules' sites (in memory, and on disk unless
    caches are off), so loading the same records again costs a hash and reading one file."""
    from panic_lens.catalog.sites import site_rules
    from panic_lens.rules.language import configs as configs_module
    from panic_lens.rules.meta import SHIPPED, added_rules

    hands = tuple(SHIPPED + added_rules()) if hand_rules is None else tuple(hand_rules)
    records = list(records)
    if guards is None:  # the shipped index: its file's bytes key the cache (it is parsed,
        guards_print = _shipped_guards_print()  # 2.6 MB of JSON, only to derive)
    else:
        gid = id(guards)
        if gid not in _GUARDS_PRINTS:
            _GUARDS_PRINTS.clear()
            _GUARDS_PRINTS[gid] = _fingerprint(guards)
        guards_print = _GUARDS_PRINTS[gid]
    key = _fingerprint(
        [
            _code_print(),
            guards_print,
            _shipped_table_print() if table is None else [table.burn, sorted(table.configs)],
            [(r.id, r.panic_sites) for r in hands],
            files_print or _halves_print(records),
        ]
    )
    if key in _MEMO:
        return _MEMO[key]
    stored = _read_cache(key)
    if stored is not None and all(record.id in stored for record in records):
        out = {record.id: stored[record.id] for record in records}
        _MEMO.clear()
        _MEMO[key] = out
        return out
    out = {}
    # Records about one panic share its one rule: records with the same panic half, and
    # records whose halves resolve to the same site and write the same rule (`_Deriver`);
    # a dataset holds many records of one site, and a rule per record made the registry
    # grow with the dataset, not with burn's panics.
    by_half: dict[Any, Outcome] = {}
    deriver: _Deriver | None = None  # made when a record is derived
    for record in records:
        if record.panic in by_half:
            out[record.id] = by_half[record.panic]
            continue
        covered = site_rules(record, hands)
        if covered:
            out[record.id] = by_half[record.panic] = Covered(covered)
            continue
        if deriver is None:
            if table is None:
                table = configs_module.table()
            deriver = _Deriver(shipped_guards() if guards is None else guards, table)
        out[record.id] = by_half[record.panic] = deriver.derive(record, share=True)
    _write_cache(key, out)
    _MEMO.clear()
    _MEMO[key] = out
    return out


_HALF_FIELDS = attrgetter(*(f.name for f in fields(PanicSite)))


def _halves_print(records: list[Record]) -> str:
    """A hash of the records' ids and panic halves, in id order (the order the records were
    read in does not change it)."""
    rows = sorted(((r.id, _HALF_FIELDS(r.panic)) for r in records), key=itemgetter(0))
    return hashlib.sha256(marshal.dumps(rows, 2)).hexdigest()  # version 2: no references, faster


@lru_cache(maxsize=1)
def _code_print() -> str:
    """What derive() writes and what its cache holds (its outcomes, their rule specs) change
    with this module and the rule language's spec module: their bytes key the cache."""
    from panic_lens.rules.language import spec

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(Path(spec.__file__).read_bytes())
    return digest.hexdigest()


def _cache_file(key: str) -> Path | None:
    from panic_lens import cachedir

    if cachedir.disabled():
        return None
    return cachedir.root() / "derived" / f"{key[:32]}.pickle"


def _read_cache(key: str) -> dict[str, Outcome] | None:
    """The stored outcomes by record id (records that shared an outcome share it again),
    rule specs included, so that a warm start parses no rule file."""
    path = _cache_file(key)
    if path is None:
        return None
    try:
        data = pickle.loads(path.read_bytes())
    except Exception:  # unreadable, or of classes that have changed since: derived again
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    outcomes = data.get("outcomes")
    return outcomes if isinstance(outcomes, dict) else None


def _write_cache(key: str, outcomes: dict[str, Outcome]) -> None:
    path = _cache_file(key)
    if path is None:
        return
    try:  # pickle writes each shared outcome once and restores the sharing
        data = pickle.dumps({"key": key, "outcomes": outcomes}, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    except (OSError, pickle.PicklingError):
        pass  # a cache that cannot be written is only slower


def register_derived(
    records: Iterable[Record], files_print: str | None = None
) -> dict[str, Outcome]:
    """Derive the records no hand-written rule covers and register their rules (replacing
    the rules derived before). Returns every record's outcome. `files_print`: the loader's
    print of the files `records` are all of (`LoadResult.files_print`)."""
    from panic_lens.rules.meta import info_from_spec, set_derived_rules

    outcomes = derive_all(records, files_print=files_print)
    infos: dict[str, RuleInfo] = {}  # one rule per panic: records of one site share it
    for outcome in outcomes.values():
        if isinstance(outcome, Derived) and outcome.spec.id not in infos:
            try:
                infos[outcome.spec.id] = info_from_spec(outcome.spec)
            except RuleFileError:
                continue
    set_derived_rules(tuple(infos.values()))
    return outcomes

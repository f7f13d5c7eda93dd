"""Stage 2, lifting the chain to public entry points: the guard and the conditions on the way
to it, as Rust text in the panicking function's scope (`initial_chain`), are carried up the
call graph (each caller's arguments for the parameters, its `let`s inlined, a config built
in burn for `self`) until they reach functions users can call (`public_entries`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from panic_lens.catalog.derive.model import (
    Chain,
    Site,
    Unmapped,
    callee_key,
    per_guards_index,
    split_args,
)
from panic_lens.catalog.derive.site import check_functions
from panic_lens.catalog.derive.translate import Scope, Translator
from panic_lens.rules.language.configs import ConfigTable

MAX_DEPTH = 5  # private helpers followed up to this many calls
MAX_ENTRIES = 64  # public calls
MAX_WAYS = 4  # ways from one public call to the panic


_SIMPLE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*|\d[\w.]*")  # needs no parentheses


def _substitute(text: str, mapping: dict[str, str]) -> str:
    if not mapping or _names_in(text).isdisjoint(mapping):
        return text

    def repl(found: re.Match[str]) -> str:
        name = found.group(0)
        if name not in mapping:
            return name
        value = mapping[name].strip()
        return value if _SIMPLE.fullmatch(value) else f"({value})"

    out = []
    for part in _QUOTED.split(text):
        out.append(part if part.startswith('"') else _NAME.sub(repl, part))
    return "".join(out)


@lru_cache(maxsize=1 << 16)
def _names_in(text: str) -> frozenset[str]:
    """The whole names of `text` `_substitute` may replace (outside its string literals): the
    same text is lifted through caller after caller, and most mappings name none of them."""
    parts = _QUOTED.split(text)
    return frozenset(n for part in parts if not part.startswith('"') for n in _NAME.findall(part))


_WORD = re.compile(r"\w+")
_QUOTED = re.compile(r'("(?:[^"\\]|\\.)*")')
# a whole name: not a field, a path's part or a call's name (one pattern for every mapping:
# one per mapping was compiled again and again, `re`'s cache of 512 thrashing)
_NAME = re.compile(r"(?<![\w.:])[A-Za-z_]\w*(?![\w(]|\s*::)")


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
            lets = {n: e for n, e in lets.items() if n not in _WORD.findall(e)}
        if not lets:
            return
        items[:] = [_subst_item(i, lets) for i in items]
        holes[:] = [_substitute(h, lets) for h in holes]


def initial_chain(site: Site, functions: dict[str, Any]) -> Chain:
    fn = functions[site.fn_key]
    panic = fn["panics"][site.index]
    items: list[tuple[str, ...]] = [tuple(p) for p in panic["path"]]
    holes: list[str] = []
    if site.check is not None:
        check_fn = check_functions(functions)[site.check[0]]
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
            items[-1] = ("if", _expect_guard(panic["guard"], fn))
        holes = _named_holes(panic.get("message") or "") if site.via is None else []
    _inline_lets(fn, items, holes, panic["line"])
    return Chain(site.fn_key, tuple(items), tuple(holes))


def _expect_guard(guard: str, fn: dict[str, Any]) -> str:
    """When an `.expect(..)` fails, as a Rust condition: `NonZeroUsize::new(x)` when x == 0;
    `xs.first()`, `.last()`, `xs.iter().next()` when xs is empty; `xs.get(i)` when i is past
    its end; an `Option` parameter (`fan_in.expect(..)`) when it is `None`. Other `.expect`s
    (a `Result` from I/O, a lock, a channel) are not read."""
    found = re.fullmatch(r"NonZero(?:U|I)(?:size|8|16|32|64|128)::new\((.*)\) fails", guard)
    if found is not None:
        return f"({found.group(1)}) == 0"
    found = re.fullmatch(r"(.+?)\s*\.\s*(?:first|last)\(\) fails", guard, re.S)
    if found is None:
        found = re.fullmatch(
            r"(.+?)\s*\.\s*(?:iter|into_iter)\(\)\s*\.\s*(?:next|next_back)\(\) fails", guard, re.S
        )
    if found is not None:
        return f"({found.group(1)}).is_empty()"
    found = re.fullmatch(r"(.+?)\s*\.\s*get\(([^()]*)\) fails", guard, re.S)
    if found is not None:
        return f"({found.group(2)}) >= ({found.group(1)}).len()"
    found = re.fullmatch(r"(\w+)(?:\s*\.\s*(?:as_ref|as_deref|clone)\(\))? fails", guard)
    options = {name for name, type_ in fn["params"] if re.match(r"(?:&\s*)?Option\s*<", type_)}
    if found is not None and found.group(1) in options:
        return f"{found.group(1)} == None"
    raise Unmapped("`.expect(..)` (the failure of a Result or Option)")


def _named_holes(message: str) -> list[str]:
    """`{channels_in}` holes of a format string (positional `{}` ones are not followed)."""
    return [h for h in re.findall(r"\{(\w+)(?::[^{}]*)?\}", message) if not h.isdigit()]


@per_guards_index
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
    if module[-len(qualifier) :] == qualifier:
        return True
    # by its public path, as burn's own crates call it (`burn::tensor::activation::prelu`)
    public = str(fn.get("public") or "").split("::")
    return len(segments) >= 2 and public[-len(segments) :] == segments


@per_guards_index
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
    chain: Chain,
    caller_key: str,
    call: dict[str, Any],
    functions: dict[str, Any],
    table: ConfigTable,
) -> Chain:
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
        chain = Chain(chain.fn, tuple(items), tuple(holes))
    elif fn["self"] is not None and "via" in call:
        mapping["self"] = call["via"]  # `self.padding.f(..)`: f's self is the caller's field
    elif fn["self"] is not None and by_path and len(args) == len(names) + 1:
        # `Type::method(receiver, ..)`: the first argument is self
        mapping = dict(zip(names, args[1:], strict=False))
        mapping["self"] = args[0]
    items = [tuple(p) for p in call["path"]] + [_subst_item(i, mapping) for i in chain.items]
    holes = [_substitute(h, mapping) for h in chain.holes]
    _inline_lets(caller, items, holes, call["line"])
    return Chain(caller_key, tuple(items), tuple(holes))


def _entry_paths(
    fn: dict[str, Any], table: ConfigTable, impls: dict[str, list[str]]
) -> list[tuple[str, str]]:
    """The public paths of `fn` and their kinds, when users can call it: one path, or for a
    blanket impl's method (`impl<T: Dataset<I>> Windows<I> for T`) one per public type that
    implements the bounds (`InMemDataset::windows`)."""
    if fn.get("bounds") and fn["vis"] == "trait":
        types = [set(impls.get(b, ())) for b in fn["bounds"]]
        found = sorted(set.intersection(*types)) if types else []
        return [(f"{t}::{fn['name']}", "method") for t in found]
    entry = _entry_path(fn, table)
    if entry is None:
        return []
    if fn["trait"] not in (None, fn["owner"]) and fn.get("public") in impls.get("Backend", ()):
        return []  # a backend's op: users reach it through the tensor API, never by its path
    return [entry]


def _entry_path(fn: dict[str, Any], table: ConfigTable) -> tuple[str, str] | None:
    """The public path of `fn` and its kind, when users can call it; else None."""
    if fn["vis"] not in ("pub", "trait"):
        return None
    owner = fn["owner"]
    public = fn.get("public")
    if owner is None:
        return (public, "function") if public else None
    # a trait's impl on a public type: users call it on a value of the type (`x.get(i)`),
    # which the rule language resolves by the receiver's type like an inherent method
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


def public_entries(
    start: Chain,
    functions: dict[str, Any],
    table: ConfigTable,
    impls: dict[str, list[str]] | None = None,
    via: tuple[str, int] | None = None,
) -> tuple[list[tuple[Chain, str, str]], list[str]]:
    """Every public entry reached from `start` (chain in the entry's scope, path, kind), and
    why other paths stopped. `impls`: the guards index's public implementors by trait;
    `via`: the one call (caller's key, line) to follow from `start`'s function, whose own
    callers are not its entries (the panic's message is that call's).

    Worked out once per start in a load: a record's panic is lifted again as a sibling of
    the others of its message or its check (in burn's index, five times on average)."""
    held = _entries_memo(functions).setdefault((id(table), id(impls)), (table, impls, {}))
    found = held[2].get((start, via))
    if found is None:
        found = held[2][(start, via)] = _public_entries(start, functions, table, impls, via)
    return list(found[0]), list(found[1])


def forget_lifts() -> None:
    """Drop what `public_entries` and `_substitute` keep for one load of records."""
    _names_in.cache_clear()
    _entries_memo({})  # (held for the last index only: this empty one)


@per_guards_index
def _entries_memo(
    functions: dict[str, Any],
) -> dict[tuple[int, int], tuple[Any, Any, dict[Any, tuple[tuple[Any, ...], tuple[str, ...]]]]]:
    """`public_entries`' answers, by the table and implementors asked with (held, so that
    their ids stay theirs) and then by start."""
    return {}


def _public_entries(
    start: Chain,
    functions: dict[str, Any],
    table: ConfigTable,
    impls: dict[str, list[str]] | None,
    via: tuple[str, int] | None,
) -> tuple[tuple[tuple[Chain, str, str], ...], tuple[str, ...]]:
    out: list[tuple[Chain, str, str]] = []
    per_call: dict[str, int] = {}
    stops: list[str] = []
    frontier = [(start, 0, frozenset({start.fn}))]
    while frontier:
        chain, depth, seen = frontier.pop(0)
        fn = functions[chain.fn]
        entries = _entry_paths(fn, table, impls or {}) if not (via and depth == 0) else []
        for entry in entries:  # a few ways per call (`||`ed later), MAX_ENTRIES calls
            ways = per_call.setdefault(entry[0], 0)
            if ways < MAX_WAYS and (ways or len(per_call) <= MAX_ENTRIES):
                per_call[entry[0]] += 1
                out.append((chain, *entry))
        if len(per_call) > MAX_ENTRIES:
            break
        if depth >= MAX_DEPTH:
            stops.append(f"{show(fn)}: callers deeper than {MAX_DEPTH} calls")
            continue
        callers = list(_callers(chain.fn, functions))
        if via is not None and depth == 0:
            callers = [(k, c) for k, c in callers if (k, c["line"]) == via]
        if not callers and not entries and not out:
            stops.append(f"{show(fn)} ({fn['vis'] or 'private'}) has no caller that is public")
        for key, call in callers:
            if key in seen:
                continue
            try:
                lifted = _lift(chain, key, call, functions, table)
            except Unmapped as exc:
                stops.append(f"{show(functions[key])}: {exc}")
                continue
            frontier.append((lifted, depth + 1, seen | {key}))
    return tuple(out), tuple(stops)


def module_fields(
    call: str, kind: str, table: ConfigTable, functions: dict[str, Any] | None = None
) -> dict[str, str]:
    """A module's fields as its config's values (CEL), for a `module` entry: what the config's
    method that builds the module set each to (`d_k: self.d_model / self.n_heads` is
    `config.d_model / config.n_heads`; `dropout: DropoutConfig::new(..).init()` is nothing
    the rule reads), or where the index has no such method, the config's field of the name."""
    if kind != "module":
        return {}
    module = call.rsplit("::", 1)[0]
    config = table.config(table.modules.get(module))
    if config is None:
        return {}
    named = {f.name: f"config.{f.name}" for f in config.fields}
    builder = builders(functions or {}).get(
        (config.path.rsplit("::", 1)[-1], module.rsplit("::", 1)[-1])
    )
    if builder is None:
        return named
    fn = functions[builder]  # type: ignore[index]
    translator = Translator(Scope("config", [], False, named))
    out: dict[str, str] = {}
    for name, expr in fn["builds"][module.rsplit("::", 1)[-1]].items():
        values = [expr]
        _inline_lets(fn, [], values, fn["lines"][1] + 1)
        try:
            out[name] = translator.expr(values[0])
        except Unmapped:
            continue  # a value the config does not say: the field stays unknown
    return out


@per_guards_index
def builders(functions: dict[str, Any]) -> dict[tuple[str, str], str]:
    """The method of each config that builds each struct (`init` first), by (config, type)."""
    found: dict[tuple[str, str], str] = {}
    for key in sorted(functions, key=lambda k: functions[k]["name"] != "init"):
        fn = functions[key]
        for type_ in fn.get("builds", {}):
            found.setdefault((fn["owner"], type_), key)
    return found


def show(fn: dict[str, Any]) -> str:
    return (f"{fn['owner']}::" if fn["owner"] else "") + fn["name"]

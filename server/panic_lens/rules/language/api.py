"""Which burn functions and methods panic-lens knows, for the load-time check of a rule's
`[[where]] call` (`check.py`).

Known are: a config's `new`, `init` and `with_<field>` (the shipped config table, which knows
every public path of each config and of the module its `init` makes), and every function and
method of the shipped guards index (burn's functions that can panic, or call one that can),
by type or trait and name, plus the tensor methods `rust/` reads shapes through. A config or
module path must be one of its public paths (`burn::nn::HuberLossConfig` is not one); another
type's path is taken as written, its name must be known.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from panic_lens.rules.language import configs
from panic_lens.rules.language.configs import guards_files, read_guards, shipped_guards
from panic_lens.rules.language.spec import did_you_mean
from panic_lens.rust import burn_api, tensors


@dataclass(frozen=True, slots=True)
class KnownApi:
    methods: dict[str, frozenset[str]]  # type or trait name -> its functions
    functions: frozenset[str]  # free functions by name
    # (type or trait name or "", function name) -> the `[name, type]` parameters, self
    # excluded, of each of its definitions
    params: dict[tuple[str, str], list[Any]]
    # (trait name, method name) -> the paths of the public types a blanket impl of the trait
    # makes the method callable on (`impl<I, T: Dataset<I>> Windows<I> for T`)
    blankets: dict[tuple[str, str], frozenset[str]]
    indexed: bool = True  # False: no guards index is shipped, so no call can be resolved
    # each path the resolver gives for a type or free function the index knows by several
    # -> all of them (`burn::backend::Slice`, `burn::tensor::Slice`, `burn_std::Slice`..)
    aliases: dict[str, frozenset[str]] = field(default_factory=dict)


def _close(name: str, known: Iterable[str]) -> str:
    return did_you_mean(name, known)


@lru_cache(maxsize=1)
def known_api() -> KnownApi:
    """What the shipped guards index knows (nothing but the tensor methods when none is
    shipped): the deriver's parse of it while the deriver holds one (a start that derives
    records parses the file once), else a parse of its own, dropped once summarised (the
    server keeps only this summary)."""
    files = guards_files()
    if not files:
        return api_of({"functions": {}})
    held = shipped_guards.cache_info().currsize > 0
    return api_of(shipped_guards() if held else read_guards(files[-1]))


def api_of(guards: dict[str, Any]) -> KnownApi:
    """The functions of a guards index (`rust.burn_guards`) by owner (a blanket impl's method
    by each public type implementing its bounds too), with the tensor methods `rust/` reads
    shapes through and the free functions burn's modules export."""
    methods: dict[str, set[str]] = {}
    functions: set[str] = set()
    params: dict[tuple[str, str], list[Any]] = {}  # the parameters of each definition
    blankets: dict[tuple[str, str], set[str]] = {}
    impls: dict[str, list[str]] = guards.get("impls") or {}
    for entry in guards.get("functions", {}).values():
        name = entry.get("name")
        owners = [o for o in (entry.get("owner"), entry.get("trait")) if o]
        implementors = _implementors(entry.get("bounds") or (), impls)
        if implementors and entry.get("trait"):
            blankets.setdefault((entry["trait"], name), set()).update(implementors)
        owners += sorted({path.rsplit("::", 1)[-1] for path in implementors})
        for owner in owners:
            methods.setdefault(owner, set()).add(name)
        if not owners:
            functions.add(name)
        for owner in owners or [""]:
            params.setdefault((owner, name), []).append(entry.get("params", ()))
    tensor = methods.setdefault("Tensor", set())
    tensor |= tensors.SAME_DTYPE_AND_DEVICE | tensors.CREATORS | burn_api.TENSOR_SELF_METHODS
    for exports in burn_api.GLOB_EXPORTS.values():
        functions |= {n for n in exports if n[:1].islower() and len(n) > 1}
    return KnownApi(
        {k: frozenset(v) for k, v in methods.items()},
        frozenset(functions),
        params,
        {key: frozenset(paths) for key, paths in blankets.items()},
        indexed=bool(guards.get("functions")),
        aliases=_aliases_by_key(guards.get("aliases") or {}),
    )


def _aliases_by_key(aliases: dict[str, str]) -> dict[str, frozenset[str]]:
    """The index's `aliases` (path -> its item's public key) as each path -> its group."""
    by_key: dict[str, set[str]] = {}
    for alias, key in aliases.items():
        by_key.setdefault(key, {key}).add(alias)
    return {path: frozenset(group) for group in by_key.values() for path in group}


def aliases_of(path: str) -> frozenset[str]:
    """Every path naming the burn type or free function `path` names (itself included) when
    the guards index knows it by several: burn re-exports an item in several modules and
    crates, and a user may write any of them; else empty."""
    return known_api().aliases.get(path, frozenset())


def _implementors(bounds: Iterable[str], impls: dict[str, list[str]]) -> set[str]:
    """The paths of the public types a blanket impl's method is callable on (`impl<T:
    Dataset<I>> Windows<I> for T`: every public type implementing all of its bounds)."""
    found = [set(impls.get(b, ())) for b in bounds]
    return set.intersection(*found) if found else set()


def blanket_implementors(trait: str, name: str) -> frozenset[str]:
    """The paths of the public types on which the trait `trait`'s method `name` is callable
    through a blanket impl (`impl<I, T: Dataset<I>> Windows<I> for T`: every type the index
    lists as implementing all of its bounds), for a `[[where]]` on the trait's method."""
    return known_api().blankets.get((trait.rsplit("::", 1)[-1], name), frozenset())


def parameter_types(call: str) -> tuple[tuple[str, ...], ...]:
    """The Rust types of the parameters of `call` (a method's without `self`) in each of its
    definitions the guards index has (a method of several impls has several)."""
    owner, _, name = call.rpartition("::")
    owner_name = owner.rsplit("::", 1)[-1]
    key = (owner_name if owner_name[:1].isupper() else "", name)
    found = known_api().params.get(key, ())
    return tuple(dict.fromkeys(tuple(str(p[1]) for p in params if len(p) == 2) for params in found))


def resolve(call: str) -> str | None:
    """None when `call` names a burn API panic-lens knows, else why not (None too when
    panic-lens ships no index of burn to tell)."""
    if not known_api().indexed:
        return None
    segments = call.split("::")
    owner = call.rpartition("::")[0]
    known_path = aliases_of(owner) or aliases_of(call)  # another burn crate's path of an item
    if segments[0] not in burn_api.CRATE_ROOTS and not known_path:
        roots = ", ".join(sorted(burn_api.CRATE_ROOTS))
        return f"`{segments[0]}` is not a burn crate ({roots})" + _close(
            segments[0], burn_api.CRATE_ROOTS
        )
    owner, _, name = call.rpartition("::")
    owner_name = owner.rsplit("::", 1)[-1]
    if owner_name[:1].isupper():
        return _method(owner, owner_name, name)
    return _function(call, name)


def _method(owner: str, owner_name: str, name: str) -> str | None:
    table = configs.table()
    api = known_api()
    info = table.config(owner)
    module_config = configs.config_of_module(owner)
    if info is None and module_config is None:
        paths = _public_paths(owner_name)
        if paths:  # a config or module of burn's, at a path that does not name it
            hint = _close(owner, paths) or f" (did you mean `{paths[0]}`?)"
            return f"`{owner}` is not a path of burn's `{owner_name}`{hint}"
        if owner_name not in api.methods:
            types = set(api.methods) | {p.rsplit("::", 1)[-1] for p in table.aliases}
            return f"`{owner_name}` is no burn type panic-lens knows" + _close(owner_name, types)
        methods = api.methods[owner_name]
    elif info is not None:
        methods = (
            api.methods.get(owner_name, frozenset())
            | {"new"}
            | {f"with_{f.name}" for f in info.fields}
        )
        methods |= {"init"} if info.init else set()
    else:
        methods = api.methods.get(owner_name, frozenset())
    if name in methods:
        return None
    return f"`{name}` is no function of `{owner}` panic-lens knows" + _close(name, methods)


def _function(call: str, name: str) -> str | None:
    functions = known_api().functions
    if name in functions:
        return None
    return f"`{call}` is no burn function panic-lens knows" + _close(name, functions)


def _public_paths(type_name: str) -> list[str]:
    """The public paths of the config or module of burn named `type_name`."""
    table = configs.table()
    if _BY_NAME.get("table") is not table:  # one index per table (tests substitute theirs)
        found: dict[str, set[str]] = {}
        for path in (*table.aliases, *table.modules):
            found.setdefault(path.rsplit("::", 1)[-1], set()).add(path)
        _BY_NAME.update(table=table, paths={n: sorted(p) for n, p in found.items()})
    paths: dict[str, list[str]] = _BY_NAME["paths"]
    return paths.get(type_name, [])


_BY_NAME: dict[str, Any] = {}

"""burn's panic guards: every function of burn's crates that can panic, with the condition
under which it does, and the calls that lead to one (the facts a record's panic is derived
from; `catalog/derive/` reads them).

`build_guards(burn_root)` reads `crates/*/src/**/*.rs` (not tests, benches, examples,
`#[cfg(test)]` items or `#[cfg(not(feature = "std"))]` ones: builds without std, whose twins
of std items stand beside them; burn's users build with std) and returns a JSON-serialisable,
deterministic table:

    {"functions": {"<file>:<line> <Owner>::<name>": {
        "name", "owner", "trait", "vis", "module", "file", "lines": [first, last],
        "params": [[name, type], ..], "self": "&self" | null, "returns": type | null,
        "generics": [name, ..],              # type and const parameters, as a turbofish orders them
        "lets": {name: [[line, expr], ..]},  # simple `let name = expr;`s of the body
        "public": path,                      # a `pub` one's owner (or itself) as users name it
        "panics": [{"kind", "line", "guard", "message", "path", "debug"?, "check"?, "args"?,
                    "generics"?,         # a check!'s call: its arguments and turbofish
                    "message_param"?}],  # `.expect(msg)`: which parameter is the message
        "calls": [{"callee", "args", "line", "path", "via"?}],  # via: the field or parameter
                                             # called through
        "bounds"?: [trait, ..],              # a blanket impl's method: what `self` implements
        "builds"?: {type: {field: expr}},    # a config's method: the struct it builds
    }},
     "impls": {"<Trait>": [public type path, ..]},  # the public types implementing each trait
     "aliases": {path: public}}  # another path users can write for an owner or a function

A panic's `guard` is the Rust condition under which it fires at that point (`None`: it
fires whenever reached); `path` lists the conditions on the way there, innermost last:
`["if", cond]`, `["else", cond]` (cond is false there, also after `if cond { return }`),
`["for", pattern, iterable]`, `["iflet", pattern, value]`, `["opaque", what]` (code that
may not run: a while loop, a loop, a closure, a loop after a break, code after an early exit),
`["arm", scrutinee, pattern, *earlier arms' patterns]` (a catch-all arm holds when none of the
earlier ones does).
A call through a field (`self.padding.f(..)`) is a call of the field's type's method (the
struct definition says the type; `rust/burn_types.py`), with `via` the field; so is a call on a
parameter of a named type (`options.assert_valid(..)` on `options: StftOptions`), with `via`
the parameter.
Only functions that can panic or call (by name) one that can are kept, and of their calls
only those; the facts are short fragments (names, types, guards, messages), no bodies.
Each file is read by `rust/burn_panics.py`; this module joins the files: calls through fields,
blanket impls' bounds, the pruning and the public paths.
"""

from __future__ import annotations

import gzip
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from panic_lens.rust import burn_api
from panic_lens.rust.burn_panics import guards_of_source, module_of, split_args
from panic_lens.rust.burn_types import TypeFacts

__all__ = [
    "build_guards", "callee_key", "dumps_guards", "guards_of_source", "module_of", "split_args",
]  # fmt: skip

_SKIP_DIRS = frozenset({"tests", "benches", "examples", "test", "bench"})


def build_guards(burn_root: str | Path) -> dict[str, Any]:
    """The guards table of the burn checkout at `burn_root` (see the module docstring)."""
    root = Path(burn_root)
    functions: dict[str, dict[str, Any]] = {}
    types = TypeFacts()
    for path in sorted(root.glob("crates/*/src/**/*.rs")):
        rel = path.relative_to(root).as_posix()
        if any(part in _SKIP_DIRS for part in rel.split("/")[3:-1]):
            continue
        try:
            src = path.read_bytes()
        except OSError:
            continue
        functions.update(guards_of_source(src, rel, types))
    resolve_field_calls(functions, types)
    for fn in functions.values():
        bounds = types.blanket_bounds(fn) if fn["trait"] else None
        if bounds is not None:
            fn["bounds"] = list(bounds)
    kept = prune(functions)
    aliases: dict[str, str] = {}
    impls = add_public_paths(root, kept, types.impls, aliases)
    return {"functions": kept, "impls": impls, "aliases": dict(sorted(aliases.items()))}


def resolve_field_calls(functions: dict[str, dict[str, Any]], types: TypeFacts) -> None:
    """A call through a field (`self.padding.f(..)`) becomes a call of the field's type's
    method (`PaddingConfig2d::f`, with `via`: the field, which is that method's `self`), when
    the owner's struct says the field's type and that type has methods; else it is dropped
    (whose method it is is not known)."""
    owners = {fn["owner"] for fn in functions.values() if fn["owner"]}
    for fn in functions.values():
        calls = []
        for call in fn["calls"]:
            name = call.pop("field", None)
            if name is not None:
                type_ = types.field_type(fn["owner"] or "", fn["module"], name)
                if type_ is None or type_ not in owners:
                    continue
                method = str(call["callee"]).rsplit(".", 1)[-1]
                call["callee"], call["via"] = f"{type_}::{method}", f"self.{name}"
            calls.append(call)
        fn["calls"] = calls


def add_public_paths(
    root: Path,
    functions: dict[str, dict[str, Any]],
    impls: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
    aliases: dict[str, str] | None = None,
) -> dict[str, list[str]]:
    """Set `public` on each `pub` function: the path panic-lens's resolver gives a user's
    call of it (its owner type's, or its own for a free function), when users can name it.
    Names are resolved with `rust.burn_workspace` (`pub mod`, `pub use`, globs), with free
    functions added to its items in the value namespace (`burn_workspace.VALUE`: a function
    `matvec` re-exported next to its private module `matvec`); an owner is resolved in the
    scope of its impl's module. Returns, for each trait of `impls` ((trait, type, module) of
    each `impl Trait for Type`), the public paths of the types implementing it. `aliases`
    gets every other path the resolver gives for one of these items -> its `public` key
    (`burn::tensor::Slice` and `burn_std::Slice` -> `burn::backend::Slice`): a user may write
    any of them."""
    from panic_lens.rust import burn_workspace as bi

    if not (root / "crates").is_dir():
        return {}
    space = bi.Workspace(root)
    space.load()
    for module in space.modules.values():
        crate, path = module.key
        for node, attrs in bi.items_of(module.body, module.src):
            if node.type != "function_item" or bi.test_only(attrs, module.src):
                continue
            name_node = node.child_by_field_name("name")
            if name_node is None:
                continue
            name = module.src[name_node.start_byte : name_node.end_byte].decode()
            entity = ("item", (crate, path, name))
            module.items.setdefault(name + bi.VALUE, (entity, bi.visibility(node, module.src)))
    space.resolve_names()
    targets: dict[str, Any] = {}
    for key, fn in functions.items():
        if fn["vis"] not in ("pub", "trait"):
            continue
        crate, *inner = fn["module"].split("::")
        scope = space.scopes.get((crate, tuple(inner)), {})
        if fn["owner"] is None:
            targets[key] = (crate, tuple(inner), fn["name"])
            continue
        entry = scope.get(fn["owner"])
        if entry is not None and entry[0][0] == "item":
            targets[key] = entry[0][1]
    for index, (_, type_, module_path) in enumerate(impls):
        crate, *inner = module_path.split("::")
        entry = space.scopes.get((crate, tuple(inner)), {}).get(type_)
        if entry is not None and entry[0][0] == "item":
            targets[f"impl {index}"] = entry[0][1]
    found = space.public_paths(set(targets.values()))
    implementors: dict[str, set[str]] = {}
    for key, target in targets.items():
        paths = found.get(target)
        if not paths:
            continue
        public = bi.canonical_key(sorted(paths))
        if key.startswith("impl "):
            trait = impls[int(key[5:])][0]
            implementors.setdefault(trait, set()).add(public)
        else:
            functions[key]["public"] = public
        if aliases is not None:
            for path in paths:
                alias = burn_api.canonical(path)
                if alias is not None and alias != public:
                    aliases[alias] = public
    return {trait: sorted(types) for trait, types in sorted(implementors.items())}


def prune(functions: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Keep the functions that can panic or call one that can (by owner and name, see
    `callee_key`); of their calls, keep only those."""
    reach = {(f["owner"], f["name"]) for f in functions.values() if f["panics"]}
    reach |= {
        ("TensorCheck", p["check"]) for f in functions.values() for p in f["panics"] if "check" in p
    }
    changed = True
    while changed:
        changed = False
        for fn in functions.values():
            target = (fn["owner"], fn["name"])
            if target not in reach and any(callee_key(c, fn) in reach for c in fn["calls"]):
                reach.add(target)
                changed = True
    owners = {owner for owner, _ in reach if owner}  # a module a config builds matters if so
    out: dict[str, dict[str, Any]] = {}
    for key in sorted(functions):
        fn = functions[key]
        calls = [c for c in fn["calls"] if callee_key(c, fn) in reach]
        builds = {t: f for t, f in fn.get("builds", {}).items() if t in owners}
        if not fn["panics"] and not calls and not builds:
            continue
        kept = {**fn, "calls": calls}
        if builds:
            kept["builds"] = builds
        else:
            kept.pop("builds", None)
        used = " ".join(_texts_of(kept))
        lets: dict[str, Any] = {}
        grown = True
        while grown:  # the lets the sites read, and the lets those read
            grown = False
            for name, bindings in fn["lets"].items():
                if name not in lets and re.search(rf"\b{re.escape(name)}\b", used):
                    lets[name] = bindings
                    used += " " + " ".join(expr for _, expr in bindings)
                    grown = True
        if lets:
            kept["lets"] = lets
        else:
            del kept["lets"]
        out[key] = kept
    return out


def callee_key(call: dict[str, Any], caller: dict[str, Any]) -> tuple[str | None, str]:
    """(owner type or None, name) of a call: `Self::f`/`self.f` -> the caller's owner,
    `Type::f` -> Type, `module::f` and `f` -> a free function."""
    callee = str(call["callee"])
    if callee.startswith("self."):
        return caller["owner"], callee[5:]
    segments = callee.split("::")
    name = segments[-1]
    if len(segments) >= 2:
        head = segments[-2]
        if head == "Self":
            return caller["owner"], name
        if head[:1].isupper():
            return head.split("<", 1)[0], name
    return None, name


def _texts_of(fn: dict[str, Any]) -> Iterator[str]:
    yield from (v for fields in fn.get("builds", {}).values() for v in fields.values())
    for item in (*fn["panics"], *fn["calls"]):
        for value in item.values():
            if isinstance(value, str):
                yield value
            elif isinstance(value, list):
                yield str(value)


def dumps_guards(guards: dict[str, Any]) -> bytes:
    """The shipped form: compact JSON, sorted keys, gzip with no timestamp (byte-stable)."""
    text = json.dumps(guards, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def burn_version(burn_root: str | Path) -> str | None:
    """`[workspace.package] version` of burn's Cargo.toml."""
    try:
        data = tomllib.loads((Path(burn_root) / "Cargo.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    version = data.get("workspace", {}).get("package", {}).get("version")
    return version if isinstance(version, str) else None


def main(argv: list[str] | None = None) -> int:
    """`python -m panic_lens.rust.burn_guards BURN_CHECKOUT OUT_DIR`: writes
    `burn-<version>.guards.json.gz` into OUT_DIR and prints its size."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m panic_lens.rust.burn_guards BURN_CHECKOUT OUT_DIR")
        return 2
    root, out = Path(args[0]), Path(args[1])
    version = burn_version(root)
    if not (root / "crates").is_dir() or version is None:
        print(f"{root}: not a burn checkout (no crates/ or no workspace version)")
        return 2
    guards = build_guards(root)
    data = dumps_guards(guards)
    target = out / f"burn-{version}.guards.json.gz"
    target.write_bytes(data)
    plain = len(gzip.decompress(data))
    print(f"{target}: {len(guards['functions'])} functions, {plain} bytes ({len(data)} gzipped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

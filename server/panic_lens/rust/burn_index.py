"""An index of burn's `#[derive(Config)]` structs, computed from a burn checkout's source.

For every config: its fields in declaration order (type, `#[config(default = ..)]` as written,
whether it is an `Option`), the public paths a user can write for it, and the type its `init`
returns. The paths come from following `pub mod` and `pub use` (named, renamed, globs) from
every crate root of the workspace, the `burn` facade included; the index's key for a config is
the path panic-lens's resolver gives for its shortest `burn::` path (`burn_api.canonical`).

`build_index` reads only Rust source (tree-sitter); `load_index` reads the JSON it gives back,
with errors that name the file and the key.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from panic_lens.rust import burn_api
from panic_lens.rust.names import use_bindings
from panic_lens.rust.syntax import Node, child_by_field, node_text, parse, path_segments

FORMAT = 1
SKIPPED_DIRS = frozenset({"tests", "benches", "examples"})
_MAX_PATH = 10  # segments of a public path: re-export chains longer than this are not followed
_MAX_ROUNDS = 64  # passes of the name fixpoint (burn needs a handful)

# Visibility of a name in its module: private, restricted (`pub(crate)`, `pub(super)`...), pub.
PRIVATE, RESTRICTED, PUBLIC = 0, 1, 2

ModKey = tuple[str, tuple[str, ...]]  # (crate, module path inside it)
ItemKey = tuple[str, tuple[str, ...], str]  # (crate, module path, name)
# What a name stands for, in the type namespace: ("mod", ModKey) or ("item", ItemKey).
Entity = tuple[str, Any]
# A name of the value namespace (a function) is kept in a scope as the name and this mark:
# `mod matvec; pub use matvec::*;` brings the function `matvec` next to the module `matvec`.
VALUE = "()"
_TYPE_ITEMS = frozenset({"struct_item", "enum_item", "union_item", "trait_item", "type_item"})


class BurnIndexError(ValueError):
    """A burn checkout or an index file that cannot be read; the message names file and key."""


@dataclass(slots=True)
class _Struct:
    key: ItemKey
    file: str
    line: int
    node: Node
    src: bytes
    derives: frozenset[str]


@dataclass(slots=True)
class _Module:
    key: ModKey
    file: str
    src: bytes
    body: Node  # the file's root or the inline `mod` body
    items: dict[str, tuple[Entity, int]] = field(default_factory=dict)
    uses: list[tuple[str, tuple[str, ...], int]] = field(default_factory=list)
    globs: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    impls: list[Node] = field(default_factory=list)


class _Workspace:
    """Every crate's modules and their names, resolved to a fixpoint."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: dict[ModKey, _Module] = {}
        self.structs: dict[ItemKey, _Struct] = {}
        self.crates: dict[str, Path] = {}  # crate name as code writes it -> its root file
        self.scopes: dict[ModKey, dict[str, tuple[Entity, int]]] = {}

    # -- reading the source --------------------------------------------------------------

    def load(self) -> None:
        for manifest in sorted(self.root.glob("crates/*/Cargo.toml")):
            name = _crate_name(manifest)
            lib = manifest.parent / "src" / "lib.rs"
            if name is not None and lib.is_file() and not _test_crate(manifest.parent.name):
                self.crates[name] = lib
        for name, lib in self.crates.items():
            self._read_file(name, (), lib, lib.parent)

    def _read_file(self, crate: str, path: tuple[str, ...], file: Path, child_dir: Path) -> None:
        try:
            src = file.read_bytes()
        except OSError as err:
            raise BurnIndexError(f"{file}: cannot read: {err}") from err
        tree = parse(src)
        rel = file.relative_to(self.root).as_posix()
        self._read_module(crate, path, rel, src, tree.root_node, child_dir)

    def _read_module(
        self, crate: str, path: tuple[str, ...], rel: str, src: bytes, body: Node, child_dir: Path
    ) -> None:
        module = self.modules[(crate, path)] = _Module((crate, path), rel, src, body)
        for node, attrs in _items(body, src):
            if _test_only(attrs, src):
                continue
            kind = node.type
            vis = _visibility(node, src)
            if kind == "use_declaration":
                uses, globs = use_bindings(node, src)
                module.uses.extend((name, target, vis) for name, target in uses.items())
                module.globs.extend((target, vis) for target in globs)
            elif kind == "impl_item":
                module.impls.append(node)
            elif kind == "mod_item":
                self._read_mod_item(module, node, vis, child_dir)
            elif kind in _TYPE_ITEMS and (name_node := child_by_field(node, "name")) is not None:
                name = node_text(name_node, src)
                key: ItemKey = (crate, path, name)
                module.items.setdefault(name, (("item", key), vis))
                if kind == "struct_item" and key not in self.structs:
                    line = name_node.start_point[0] + 1
                    self.structs[key] = _Struct(key, rel, line, node, src, _derives(attrs, src))

    def _read_mod_item(self, parent: _Module, node: Node, vis: int, child_dir: Path) -> None:
        name_node = child_by_field(node, "name")
        if name_node is None:
            return
        name = node_text(name_node, parent.src)
        if name in SKIPPED_DIRS:
            return
        crate, path = parent.key
        key: ModKey = (crate, (*path, name))
        if key in self.modules:  # the same module under two cfg's: the first one read
            return
        body = child_by_field(node, "body")
        if body is not None:
            parent.items.setdefault(name, (("mod", key), vis))
            self._read_module(crate, key[1], parent.file, parent.src, body, child_dir / name)
            return
        for file, inner in ((child_dir / f"{name}.rs", child_dir / name),
                            (child_dir / name / "mod.rs", child_dir / name)):  # fmt: skip
            if file.is_file():
                parent.items.setdefault(name, (("mod", key), vis))
                self._read_file(crate, key[1], file, inner)
                return

    # -- names -----------------------------------------------------------------------------

    def resolve_names(self) -> None:
        """Every module's names (its items, its `use`s, what its globs bring), to a fixpoint."""
        self.scopes = {key: dict(m.items) for key, m in self.modules.items()}
        for _ in range(_MAX_ROUNDS):
            changed = False
            for key, module in self.modules.items():
                scope = self._scope(module)
                if scope != self.scopes[key]:
                    self.scopes[key] = scope
                    changed = True
            if not changed:
                return
        raise BurnIndexError(f"{self.root}: public names do not settle after {_MAX_ROUNDS} passes")

    def _scope(self, module: _Module) -> dict[str, tuple[Entity, int]]:
        scope = dict(module.items)
        for name, target, vis in module.uses:
            found = self.resolve(module.key, target, name)
            if found is not None and name not in module.items:
                scope[name] = (found, vis)
            value = self._resolve_value(module.key, target)
            if value is not None and name + VALUE not in module.items:
                scope[name + VALUE] = (value, vis)
        explicit = set(scope)
        for target, vis in module.globs:
            found = self.resolve(module.key, target)
            if found is None or found[0] != "mod" or found[1] == module.key:
                continue
            other: ModKey = found[1]
            inside = other[0] == module.key[0] and module.key[1][: len(other[1])] == other[1]
            for name, (entity, seen) in self.scopes.get(other, {}).items():
                if name in explicit:
                    continue
                if other[0] != module.key[0] and seen < PUBLIC:
                    continue  # another crate's glob brings its public names only
                if seen == PRIVATE and not inside:
                    continue
                merged = (entity, min(vis, seen))
                if name not in scope or scope[name][1] < merged[1]:
                    scope[name] = merged
        return scope

    def resolve(
        self, at: ModKey, segs: tuple[str, ...], binding: str | None = None
    ) -> Entity | None:
        """What the path `segs` written in module `at` names (`binding`: the name the `use`
        being resolved binds, which cannot name itself)."""
        if not segs:
            return None
        first, rest = segs[0], segs[1:]
        current: Entity | None
        if first == "":
            current = self._crate_root(rest[0]) if rest else None
            rest = rest[1:]
        elif first == "crate":
            current = ("mod", (at[0], ()))
        elif first == "self":
            current = ("mod", at)
        elif first == "super":
            current = ("mod", (at[0], at[1][:-1])) if at[1] else None
        else:
            entry = self.scopes.get(at, {}).get(first)
            if binding == first and segs == (first,):
                entry = None  # `use burn_nn;` binds the crate
            current = entry[0] if entry is not None else self._crate_root(first)
        for seg in rest:
            if current is None or current[0] != "mod":
                return None
            where: ModKey = current[1]
            if seg == "super":
                current = ("mod", (where[0], where[1][:-1])) if where[1] else None
            elif seg != "self":
                entry = self.scopes.get(where, {}).get(seg)
                current = entry[0] if entry is not None else None
        return current

    def _resolve_value(self, at: ModKey, segs: tuple[str, ...]) -> Entity | None:
        """The value (function) the path `segs` written in module `at` names, if any."""
        parent = self.resolve(at, segs[:-1]) if len(segs) > 1 else None
        if parent is None or parent[0] != "mod":
            return None
        entry = self.scopes.get(parent[1], {}).get(segs[-1] + VALUE)
        return entry[0] if entry is not None else None

    def _crate_root(self, name: str) -> Entity | None:
        return ("mod", (name, ())) if name in self.crates else None

    # -- public paths ----------------------------------------------------------------------

    def public_paths(self) -> dict[ItemKey, list[tuple[str, ...]]]:
        """Every path a user of the crates can write for each struct, shortest first."""
        found: dict[ItemKey, set[tuple[str, ...]]] = {}
        for crate in self.crates:
            stack: list[tuple[ModKey, tuple[str, ...], frozenset[ModKey]]] = [
                ((crate, ()), (crate,), frozenset({(crate, ())}))
            ]
            while stack:
                key, prefix, chain = stack.pop()
                for name, (entity, vis) in self.scopes.get(key, {}).items():
                    if vis != PUBLIC:
                        continue
                    path = (*prefix, name)
                    if entity[0] == "item" and entity[1] in self.structs:
                        found.setdefault(entity[1], set()).add(path)
                    elif entity[0] == "mod" and entity[1] not in chain and len(path) < _MAX_PATH:
                        stack.append((entity[1], path, chain | {entity[1]}))
        return {key: sorted(paths, key=_path_order) for key, paths in found.items()}


def _path_order(path: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    return len(path), path


def canonical_key(paths: list[tuple[str, ...]]) -> str:
    """What panic-lens's resolver gives for the shortest `burn::` path (else the shortest)."""
    burn = [p for p in paths if p[0] == "burn"]
    shortest = min(burn or paths, key=_path_order)
    return burn_api.canonical(shortest) or "::".join(shortest)


# -- tree helpers ------------------------------------------------------------------------------


def _items(body: Node, src: bytes) -> Iterator[tuple[Node, list[Node]]]:
    """The items of a module body with the attributes written before each."""
    attrs: list[Node] = []
    for child in body.named_children:
        if child.type == "attribute_item":
            attrs.append(child)
        elif child.type in ("line_comment", "block_comment"):
            continue
        else:
            yield child, attrs
            attrs = []


def _attribute(attr: Node, src: bytes) -> tuple[str, Node | None] | None:
    """(name, argument token tree) of `#[name(..)]`."""
    inner = next((c for c in attr.named_children if c.type == "attribute"), None)
    if inner is None or not inner.named_children:
        return None
    segs = path_segments(inner.named_children[0], src)
    if not segs:
        return None
    return segs[-1], child_by_field(inner, "arguments")


def _test_only(attrs: list[Node], src: bytes) -> bool:
    """`#[cfg(test)]` or `#[cfg(all(.., test, ..))]`."""
    for attr in attrs:
        found = _attribute(attr, src)
        if found is None or found[0] != "cfg" or found[1] is None:
            continue
        text = "".join(node_text(found[1], src).split())[1:-1]
        if text == "test":
            return True
        if text.startswith("all(") and "test" in text[4:-1].split(","):
            return True
    return False


def _derives(attrs: list[Node], src: bytes) -> frozenset[str]:
    """The last segments of the `#[derive(..)]` names (`burn::config::Config` -> `Config`)."""
    names: set[str] = set()
    for attr in attrs:
        found = _attribute(attr, src)
        if found is None or found[0] != "derive" or found[1] is None:
            continue
        tokens = [node_text(c, src) for c in found[1].children]
        for i, token in enumerate(tokens):
            if token.isidentifier() and (i + 1 == len(tokens) or tokens[i + 1] != "::"):
                names.add(token)
    return frozenset(names)


def _visibility(node: Node, src: bytes) -> int:
    vis = next((c for c in node.named_children if c.type == "visibility_modifier"), None)
    if vis is None:
        return PRIVATE
    return PUBLIC if node_text(vis, src).strip() == "pub" else RESTRICTED


def _test_crate(folder: str) -> bool:
    """A crate of tests (`burn-no-std-tests`): none of its items is burn's API."""
    return folder.rsplit("-", 1)[-1] in SKIPPED_DIRS


def _crate_name(manifest: Path) -> str | None:
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise BurnIndexError(f"{manifest}: cannot read: {err}") from err
    lib, package = data.get("lib"), data.get("package")
    lib = lib if isinstance(lib, dict) else {}
    package = package if isinstance(package, dict) else {}
    if lib.get("proc-macro"):
        return None  # a proc-macro crate exports macros only
    name = lib.get("name") or package.get("name")
    return name.replace("-", "_") if isinstance(name, str) else None


def burn_version(root: Path) -> str:
    """`[workspace.package] version` of burn's root Cargo.toml."""
    manifest = root / "Cargo.toml"
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise BurnIndexError(f"{manifest}: cannot read: {err}") from err
    version = data.get("workspace", {}).get("package", {}).get("version")
    if not isinstance(version, str):
        raise BurnIndexError(f"{manifest}: workspace.package.version: missing")
    return version


def config_default(attrs: list[Node], src: bytes) -> tuple[str | None, Node] | None:
    """A field's `#[config(..)]` as burn's Config derive reads it: None without one; else the
    expression of its `default = ..` as written (a string's content unquoted; None when the
    attribute gives none) and the node it is written at (the value, or the attribute)."""
    bare: Node | None = None  # a `#[config(..)]` without a default
    for attr in attrs:
        found = _attribute(attr, src)
        if found is None or found[0] != "config":
            continue
        tokens = [c for c in found[1].children if c.type not in ("(", ")")] if found[1] else []
        for i in range(len(tokens) - 2):
            if node_text(tokens[i], src) == "default" and tokens[i + 1].type == "=":
                value: list[Node] = []
                for token in tokens[i + 2 :]:
                    if token.type == ",":
                        break
                    value.append(token)
                if not value:
                    return None, attr
                if len(value) == 1 and value[0].type in ("string_literal", "raw_string_literal"):
                    return _string_value(value[0], src), value[0]
                text = src[value[0].start_byte : value[-1].end_byte].decode("utf-8", "replace")
                return text, value[0]
        bare = bare or attr
    return (None, bare) if bare is not None else None


def _string_value(node: Node, src: bytes) -> str:
    if node.type == "raw_string_literal":
        content = child_by_field(node, "content") or next(
            (c for c in node.named_children if c.type == "string_content"), None
        )
        return node_text(content, src) if content is not None else ""
    parts: list[str] = []
    for child in node.named_children:
        text = node_text(child, src)
        if child.type == "escape_sequence":
            parts.append(_ESCAPES.get(text, text))
        else:
            parts.append(text)
    return "".join(parts)


_ESCAPES = {'\\"': '"', "\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\'": "'", "\\0": "\0"}


def _fields(struct: _Struct) -> list[dict[str, Any]] | None:
    """The named fields of a struct in declaration order; None for a tuple or unit struct."""
    body = child_by_field(struct.node, "body")
    if body is None or body.type != "field_declaration_list":
        return None
    out: list[dict[str, Any]] = []
    for node, attrs in _items(body, struct.src):
        if node.type != "field_declaration":
            continue
        name, kind = child_by_field(node, "name"), child_by_field(node, "type")
        if name is None or kind is None:
            continue
        entry: dict[str, Any] = {
            "name": node_text(name, struct.src),
            "type": " ".join(node_text(kind, struct.src).split()),
        }
        default = config_default(attrs, struct.src)
        if default is not None and default[0] is not None:
            entry["default"] = default[0]
        if _is_option(kind, struct.src):
            entry["option"] = True
        out.append(entry)
    return out


def _is_option(kind: Node, src: bytes) -> bool:
    if kind.type != "generic_type":
        return False
    segs = path_segments(kind, src)
    return segs is not None and (
        segs == ["Option"] or (segs[-2:] == ["option", "Option"] and segs[0] in ("std", "core"))
    )


def _returned_type(function: Node, src: bytes) -> list[str] | None:
    """The path of the type a function returns (generic arguments dropped), if a plain path."""
    kind = child_by_field(function, "return_type")
    if kind is None or kind.type not in (
        "type_identifier",
        "scoped_type_identifier",
        "generic_type",
    ):
        return None
    segs = path_segments(kind, src)
    return segs if segs and segs != ["Self"] else None


# -- the index ---------------------------------------------------------------------------------


def build_index(burn_root: Path) -> dict[str, Any]:
    """The index of the burn checkout at `burn_root` (see the module's docstring)."""
    if not (burn_root / "crates").is_dir():
        raise BurnIndexError(f"{burn_root}: not a burn checkout (no crates/ folder)")
    version = burn_version(burn_root)
    space = _Workspace(burn_root)
    space.load()
    space.resolve_names()
    paths = space.public_paths()
    keys = {item: canonical_key(found) for item, found in paths.items()}

    configs: dict[str, dict[str, Any]] = {}
    by_item: dict[ItemKey, dict[str, Any]] = {}
    for item, struct in sorted(space.structs.items()):
        if "Config" not in struct.derives or item not in keys:
            continue
        fields = _fields(struct)
        if fields is None:
            continue
        entry: dict[str, Any] = {
            "file": struct.file,
            "line": struct.line,
            "paths": ["::".join(p) for p in paths[item]],
            "fields": fields,
        }
        key = keys[item]
        if key in configs:
            raise BurnIndexError(
                f"{struct.file}:{struct.line}: {key}: also the path of {configs[key]['file']}"
            )
        configs[key] = by_item[item] = entry

    modules: dict[str, str] = {}
    for module in space.modules.values():
        for impl in module.impls:
            config = _impl_target(space, module, impl)
            if config is None or config not in by_item:
                continue
            entry = by_item[config]
            for method, returned in _module_methods(space, module, impl, keys).items():
                entry.setdefault("inits", {})[method] = keys[returned]
                if method != "init":
                    continue
                entry["init"] = keys[returned]
                if "Module" in space.structs[returned].derives:
                    modules.setdefault(keys[returned], keys[config])
    return {"format": FORMAT, "burn": version, "configs": configs, "modules": modules}


def _impl_target(space: _Workspace, module: _Module, impl: Node) -> ItemKey | None:
    """The struct an inherent `impl X { .. }` is for."""
    if child_by_field(impl, "trait") is not None:
        return None
    kind = child_by_field(impl, "type")
    segs = path_segments(kind, module.src) if kind is not None else None
    found = space.resolve(module.key, tuple(segs)) if segs else None
    return found[1] if found is not None and found[0] == "item" else None


def _module_methods(
    space: _Workspace, module: _Module, impl: Node, keys: dict[ItemKey, str]
) -> dict[str, ItemKey]:
    """`pub fn` of the impl -> the burn struct it returns: `init` whatever struct it returns,
    the others when they return a struct deriving `Module`."""
    body = child_by_field(impl, "body")
    out: dict[str, ItemKey] = {}
    for node, _attrs in _items(body, module.src) if body is not None else ():
        name = child_by_field(node, "name")
        if node.type != "function_item" or name is None or _visibility(node, module.src) < PUBLIC:
            continue
        segs = _returned_type(node, module.src)
        found = space.resolve(module.key, tuple(segs)) if segs else None
        if found is None or found[0] != "item" or found[1] not in keys:
            continue
        method = node_text(name, module.src)
        if method == "init" or "Module" in space.structs[found[1]].derives:
            out[method] = found[1]
    return out


# -- reading an index ----------------------------------------------------------------------


def resolved_names(index: dict[str, Any]) -> dict[str, str]:
    """What panic-lens's resolver gives for each public path of each config -> the config's
    key. A config has several (`burn::nn::norm::GroupNormConfig` resolves as written, the key is
    `burn::nn::GroupNormConfig`); a path the resolver does not know (None) is left out."""
    out: dict[str, str] = {}
    for key, entry in sorted(index["configs"].items()):
        out.setdefault(key, key)
        for path in entry["paths"]:
            name = burn_api.canonical(path.split("::"))
            if name is not None:
                out.setdefault(name, key)
    return out


def dumps(index: dict[str, Any]) -> str:
    """The index as shipped: compact JSON, sorted keys, a newline at the end."""
    return json.dumps(index, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def load_index(path: Path) -> dict[str, Any]:
    """Read and check an index file; BurnIndexError names the file and the key that is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise BurnIndexError(f"{path}: cannot read: {err}") from err
    except json.JSONDecodeError as err:
        raise BurnIndexError(f"{path}: not JSON: {err}") from err
    check = _Checker(str(path))
    check.object(data, "")
    if data.get("format") != FORMAT:
        check.fail("format", f"expected {FORMAT}, found {data.get('format')!r}")
    check.string(data.get("burn"), "burn")
    configs = data.get("configs")
    check.object(configs, "configs")
    for key, entry in configs.items():
        where = f"configs.{key}"
        check.object(entry, where)
        check.string(entry.get("file"), f"{where}.file")
        if not isinstance(entry.get("line"), int) or isinstance(entry.get("line"), bool):
            check.fail(f"{where}.line", "expected a line number")
        paths = entry.get("paths")
        if not isinstance(paths, list) or not paths:
            check.fail(f"{where}.paths", "expected a non-empty list of paths")
        for i, item in enumerate(paths):
            check.string(item, f"{where}.paths[{i}]")
        if "init" in entry:
            check.string(entry["init"], f"{where}.init")
        for method, target in check.object(entry.get("inits", {}), f"{where}.inits").items():
            check.string(target, f"{where}.inits.{method}")
        fields = entry.get("fields")
        if not isinstance(fields, list):
            check.fail(f"{where}.fields", "expected a list of fields")
        for i, spec in enumerate(fields):
            at = f"{where}.fields[{i}]"
            check.object(spec, at)
            check.string(spec.get("name"), f"{at}.name")
            check.string(spec.get("type"), f"{at}.type")
            if "default" in spec:
                check.string(spec["default"], f"{at}.default")
            if "option" in spec and spec["option"] is not True:
                check.fail(f"{at}.option", "expected true (or no key)")
            unknown = set(spec) - {"name", "type", "default", "option"}
            if unknown:
                check.fail(f"{at}.{sorted(unknown)[0]}", "unknown key")
    for module, config in check.object(data.get("modules", {}), "modules").items():
        check.string(config, f"modules.{module}")
        if config not in configs:
            check.fail(f"modules.{module}", f"{config} is not a config of the index")
    return data


class _Checker:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, reason: str) -> NoReturn:
        raise BurnIndexError(f"{self.file}: {key or 'top level'}: {reason}")

    def object(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, "expected an object")
        return value

    def string(self, value: Any, key: str) -> None:
        if not isinstance(value, str) or not value:
            self.fail(key, "expected a non-empty string")

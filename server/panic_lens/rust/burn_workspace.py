"""burn's checkout as Rust sees it: its crates' module trees (`pub mod`, `mod x;` files), each
module's items, `use`s and globs with their visibility, and the fixpoint that gives every name
of every module what it stands for, so that `public_paths` lists each struct's public paths (the
`burn` facade included). Read only from Rust source (tree-sitter); the configs index
(`burn_index`) and the guards index (`burn_guards`) are built on it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panic_lens.rust import burn_api
from panic_lens.rust.names import use_bindings
from panic_lens.rust.syntax import Node, child_by_field, node_text, parse, path_segments

SKIPPED_DIRS = frozenset({"tests", "benches", "examples"})
MAX_PATH = 10  # segments of a public path: re-export chains longer than this are not followed
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
class Struct:
    key: ItemKey
    file: str
    line: int
    node: Node
    src: bytes
    derives: frozenset[str]


@dataclass(slots=True)
class Module:
    key: ModKey
    file: str
    src: bytes
    body: Node  # the file's root or the inline `mod` body
    items: dict[str, tuple[Entity, int]] = field(default_factory=dict)
    uses: list[tuple[str, tuple[str, ...], int]] = field(default_factory=list)
    globs: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    impls: list[Node] = field(default_factory=list)


class Workspace:
    """Every crate's modules and their names, resolved to a fixpoint."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: dict[ModKey, Module] = {}
        self.structs: dict[ItemKey, Struct] = {}
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
        module = self.modules[(crate, path)] = Module((crate, path), rel, src, body)
        for node, attrs in items_of(body, src):
            if test_only(attrs, src):
                continue
            kind = node.type
            vis = visibility(node, src)
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
                    self.structs[key] = Struct(key, rel, line, node, src, _derives(attrs, src))

    def _read_mod_item(self, parent: Module, node: Node, vis: int, child_dir: Path) -> None:
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

    def _scope(self, module: Module) -> dict[str, tuple[Entity, int]]:
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

    def public_paths(
        self, wanted: Collection[ItemKey] | None = None
    ) -> dict[ItemKey, list[tuple[str, ...]]]:
        """Every path a user of the crates can write for each struct (or each item of
        `wanted`: a function's name in the value namespace is written without its mark),
        shortest first."""
        items = self.structs if wanted is None else wanted
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
                    path = (*prefix, name.removesuffix(VALUE))
                    if entity[0] == "item" and entity[1] in items:
                        found.setdefault(entity[1], set()).add(path)
                    elif entity[0] == "mod" and entity[1] not in chain and len(path) < MAX_PATH:
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


def items_of(body: Node, src: bytes) -> Iterator[tuple[Node, list[Node]]]:
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


def attribute(attr: Node, src: bytes) -> tuple[str, Node | None] | None:
    """(name, argument token tree) of `#[name(..)]`."""
    inner = next((c for c in attr.named_children if c.type == "attribute"), None)
    if inner is None or not inner.named_children:
        return None
    segs = path_segments(inner.named_children[0], src)
    if not segs:
        return None
    return segs[-1], child_by_field(inner, "arguments")


def test_only(attrs: list[Node], src: bytes) -> bool:
    """`#[cfg(test)]` or `#[cfg(all(.., test, ..))]`."""
    for attr in attrs:
        found = attribute(attr, src)
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
        found = attribute(attr, src)
        if found is None or found[0] != "derive" or found[1] is None:
            continue
        tokens = [node_text(c, src) for c in found[1].children]
        for i, token in enumerate(tokens):
            if token.isidentifier() and (i + 1 == len(tokens) or tokens[i + 1] != "::"):
                names.add(token)
    return frozenset(names)


def visibility(node: Node, src: bytes) -> int:
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

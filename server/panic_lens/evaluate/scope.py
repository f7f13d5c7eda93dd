"""Where a name written in the user's code is defined, as Rust scopes it.

An item (`const`, `static`, `fn`, `struct`, `mod`) declared in a block is seen in that whole
block only, and shadows the items of the blocks around it and of its module; a `use` inside a
block counts there only; a `mod` body sees no outer names but what it imports. A name imported
from another module of the crate (`use crate::config::D_MODEL`, `use super::*`) is followed into
that module's file. `Type::C` and `Self::C` are the associated consts of the crate's impls of
`Type` (inherent or trait impls), else the default of a trait the type implements.

A name that resolves to nothing of the crate (burn's, std's, a macro's) is no item: None.
Locals (`let`, parameters, patterns) are `rust.locals`'; the evaluator asks them first.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panic_lens.rust.modules import module_files
from panic_lens.rust.names import Imports, ModuleRef, ScopeNames
from panic_lens.rust.syntax import Node, child_by_field, node_text, path_segments

_MAX_HOPS = 16  # `use` chains and glob cycles longer than this resolve to nothing
_TYPE_ITEMS = frozenset({"struct_item", "enum_item", "union_item", "type_item"})
_MISSING = object()


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Unit:
    """One source file as the evaluator reads it: its bytes, tree, names and path (None: an
    unsaved text)."""

    src: bytes
    root: Node
    imports: Imports
    path: str | None
    src_root: Path | None = None  # the crate's `src/` (None: no other file is read)
    impls: list[Node] = field(default_factory=list, compare=False)  # found once, when asked

    def text(self, node: Node) -> str:
        return node_text(node, self.src)


@dataclass(frozen=True, slots=True)
class Item:
    """An item of the crate and the file it is written in."""

    unit: Unit
    node: Node


def unit_of(facts: Any) -> Unit:
    """The file of a FileFacts (or anything with src, tree, imports, path, crate)."""
    manifest = getattr(getattr(facts, "crate", None), "manifest", None)
    src_root = Path(manifest).parent / "src" if manifest else None
    path = getattr(facts, "path", None)
    return Unit(facts.src, facts.tree.root_node, facts.imports, path and str(path), src_root)


def item_at(node: Node, unit: Unit) -> Item | None:
    """The crate item an identifier or a path (`N`, `limits::N`, `crate::a::N`, `Self::N`,
    `Cfg::N`) names where it is written."""
    if node.type in ("identifier", "type_identifier"):
        return _lookup(unit, (unit.text(node),), node, False, 0)
    segments = path_segments(node, unit.src)
    if not segments:
        return None
    if segments[0] == "Self" and len(segments) == 2:
        impl = _enclosing_impl(node, unit)
        owner = child_by_field(impl, "type") if impl is not None else None
        return assoc_item(unit, owner, segments[1], impl) if owner is not None else None
    return _lookup(unit, tuple(segments), node, False, 0)


# What a name means in a scope, while one name is being resolved (`_lookup` from the top): each
# scope's name is looked up once, and reads _MISSING while it is being looked up (a glob whose
# own path goes through the scope's globs is a cycle, not a search). Kept for one lookup only:
# another file of the crate may change before the next.
_RESOLVING: dict[tuple[int, int, str, tuple[str, ...]], Any] | None = None


def _lookup(unit: Unit, segs: tuple[str, ...], at: Node, inclusive: bool, hops: int) -> Any:
    """The item `segs` names as written at `at`, or None."""
    global _RESOLVING
    if _RESOLVING is not None:
        return _lookup_in(unit, segs, at, inclusive, hops)
    _RESOLVING = {}
    try:
        return _lookup_in(unit, segs, at, inclusive, hops)
    finally:
        _RESOLVING = None


def _lookup_in(unit: Unit, segs: tuple[str, ...], at: Node, inclusive: bool, hops: int) -> Any:
    if hops > _MAX_HOPS or not segs or segs[0] == "":
        return None
    first, rest = segs[0], segs[1:]
    if first in ("crate", "self", "super"):
        module = unit.imports.relative_module(first, at, inclusive)
        return _in_module(unit, module, rest, hops + 1)
    for scope in unit.imports.scope_chain(at, inclusive):
        found = _in_scope(unit, scope, first, rest, hops)
        if found is not _MISSING:
            return found
    return None


def _in_scope(unit: Unit, scope: ScopeNames, first: str, rest: tuple[str, ...], hops: int) -> Any:
    """`first::rest` through one scope's items, `use`s and globs; _MISSING when the scope does
    not name `first`. Each name of a scope is looked up once per lookup: globs reading globs
    cost one look each, not one per path through them."""
    memo = _RESOLVING if _RESOLVING is not None else {}
    key = (id(unit.imports), scope.node.id, first, rest)
    if key in memo:
        return memo[key]
    memo[key] = _MISSING  # a cycle back to this name finds nothing through it
    found = memo[key] = _in_scope_uncached(unit, scope, first, rest, hops)
    return found


def _in_scope_uncached(
    unit: Unit, scope: ScopeNames, first: str, rest: tuple[str, ...], hops: int
) -> Any:
    item = scope.items.get(first)
    if item is not None:
        return _below(unit, item, rest, hops)
    target = scope.uses.get(first)
    if target is not None:
        if target == (first,):  # `use other_crate;`
            return None
        return _lookup(unit, target + rest, scope.node, True, hops + 1)
    for glob in scope.globs:
        module = _glob_module(unit, scope, glob, hops)
        if module is None:
            continue  # another crate's glob (burn's prelude): none of the crate's items
        found = _module_names(module, first, rest, hops + 1)
        if found is not _MISSING:
            return found
    return _MISSING


def _below(unit: Unit, item: Node, rest: tuple[str, ...], hops: int) -> Item | None:
    """`item::rest`: the item itself, an item of a `mod`, or an associated const of a type."""
    if not rest:
        return Item(unit, item)
    if item.type == "mod_item":
        return _in_module(unit, unit.imports.mod_module(item), rest, hops + 1)
    if item.type in _TYPE_ITEMS and len(rest) == 1:
        return assoc_item(unit, child_by_field(item, "name"), rest[0], None, _block_impls(item))
    return None


def _block_impls(item: Node) -> list[Node] | None:
    """The impls written in the block that declares the type `item` (a type declared in a
    fn body is another type than any of the module's of its name): None at module level."""
    block = item.parent
    if block is None or block.type != "block":
        return None
    return [c for c in block.named_children if c.type == "impl_item"]


def _in_module(unit: Unit, module: ModuleRef | None, segs: tuple[str, ...], hops: int) -> Any:
    if module is None or not segs:
        return None
    found = _module_names(module, segs[0], segs[1:], hops)
    return None if found is _MISSING else found


def _module_names(module: ModuleRef, first: str, rest: tuple[str, ...], hops: int) -> Any:
    """`first::rest` inside a module (its own scope only: modules are closed)."""
    if hops > _MAX_HOPS:
        return None
    owner = module[0]
    scope = owner.module_scope(module)
    if scope is None:
        return _MISSING
    return _in_scope(_unit_for(owner), scope, first, rest, hops + 1)


def _glob_module(unit: Unit, scope: ScopeNames, glob: tuple[str, ...], hops: int) -> Any:
    """The crate module a glob `use path::*` reads, or None for another crate's."""
    if not glob:
        return None
    if glob[0] in ("crate", "self", "super"):
        module = unit.imports.relative_module(glob[0], scope.node, True)
        segs = glob[1:]
    else:
        found = _lookup(unit, glob[:1], scope.node, True, hops + 1)
        if not isinstance(found, Item) or found.node.type != "mod_item":
            return None
        module, segs = found.unit.imports.mod_module(found.node), glob[1:]
    for seg in segs:
        if module is None:
            return None
        inner = module[0].module_scope(module)
        item = inner.items.get(seg) if inner is not None else None
        if item is None or item.type != "mod_item":
            return None
        module = module[0].mod_module(item)
    if module is not None and module[1].id == scope.node.id and module[0] is unit.imports:
        return None  # `use self::*` of its own scope
    return module


# -- other files of the crate -----------------------------------------------------------------

# The file being analysed, while its evaluator holds it (weakly: a file's tree is freed with its
# analysis), and the module files `rust.modules` loaded, which its cache holds anyway.
_ANALYSED: weakref.WeakValueDictionary[int, Unit] = weakref.WeakValueDictionary()
_LOADED: dict[int, tuple[Imports, Unit]] = {}  # the Imports are held: their ids stay theirs


def register_unit(unit: Unit) -> None:
    """Make `unit` the Unit of its Imports (the file being analysed, with its path)."""
    _ANALYSED[id(unit.imports)] = unit


def _unit_for(imports: Imports) -> Unit:
    """The Unit of a file's Imports: the analysed file's, else a module file's (loaded by
    `rust.modules`), made once."""
    analysed = _ANALYSED.get(id(imports))
    if analysed is not None and analysed.imports is imports:
        return analysed
    hit = _LOADED.get(id(imports))
    if hit is not None and hit[0] is imports:
        return hit[1]
    src_root = getattr(imports._loader, "_src_root", None)
    path = _module_file(src_root, imports.module_path) if src_root is not None else None
    unit = Unit(imports.src, imports.root, imports, path, src_root)
    if len(_LOADED) > 256:
        _LOADED.clear()
    _LOADED[id(imports)] = (imports, unit)
    return unit


def _module_file(src_root: Path, module: tuple[str, ...] | None) -> str | None:
    if module is None:
        return None
    return next((str(c) for c in module_files(src_root, module) if c.is_file()), None)


# -- associated consts ------------------------------------------------------------------------


def _enclosing_impl(node: Node, unit: Unit) -> Node | None:
    """The `impl` block around `node` (through its methods), found by byte range."""
    best = None
    for impl in _impls(unit):
        inside = impl.start_byte <= node.start_byte and node.end_byte <= impl.end_byte
        if inside and (best is None or impl.start_byte >= best.start_byte):
            best = impl
    return best


def _impls(unit: Unit) -> list[Node]:
    """The impl blocks of the file at module level (the file and its `mod` bodies)."""
    if not unit.impls:
        stack, found = [unit.root], []
        while stack:
            for child in stack.pop().named_children:
                if child.type == "impl_item":
                    found.append(child)
                elif child.type == "mod_item" and (body := child_by_field(child, "body")):
                    stack.append(body)
        unit.impls.extend(found or [unit.root])  # the root: looked for, none found
    return [n for n in unit.impls if n.type == "impl_item"]


def _base_name(type_node: Node | None, unit: Unit) -> str | None:
    while type_node is not None and type_node.type in ("generic_type", "reference_type"):
        type_node = child_by_field(type_node, "type")
    if type_node is None:
        return None
    return unit.text(type_node).rsplit("::", 1)[-1]


def assoc_item(
    unit: Unit, type_node: Node | None, name: str, impl: Node | None,
    local: list[Node] | None = None,
) -> Item | None:  # fmt: skip
    """The associated const `name` of the type `type_node` names: in an impl of that type in
    its file (inherent first, then trait impls), else the default value of a trait of the
    file that the type implements. One impl giving it: that one; several: unknown. `local`:
    for a type declared in a block, the impls of that block (the module's are not its)."""
    type_name = _base_name(type_node, unit)
    if type_name is None:
        return None
    found: list[Item] = []
    traits: list[str] = []
    for block in _impls(unit) if local is None else local:
        if _base_name(child_by_field(block, "type"), unit) != type_name:
            continue
        const = _const_in(child_by_field(block, "body"), name, unit)
        if const is not None:
            found.append(Item(unit, const))
        trait = child_by_field(block, "trait")
        if trait is not None:
            traits.append(_base_name(trait, unit) or "")
    if len(found) == 1:
        return found[0]
    if found:
        return None  # two impls give `name` (two traits): Rust needs a qualified path
    for trait_name in traits:
        item = _lookup(unit, (trait_name,), impl or unit.root, impl is None, 0)
        if isinstance(item, Item) and item.node.type == "trait_item":
            const = _const_in(child_by_field(item.node, "body"), name, item.unit)
            if const is not None and child_by_field(const, "value") is not None:
                return Item(item.unit, const)
    return None


def _const_in(body: Node | None, name: str, unit: Unit) -> Node | None:
    for child in body.named_children if body is not None else ():
        if child.type in ("const_item", "static_item"):
            ident = child_by_field(child, "name")
            if ident is not None and unit.text(ident) == name:
                return child
    return None

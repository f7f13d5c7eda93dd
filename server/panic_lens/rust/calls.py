"""Call sites: one call's shape, its callee resolved on first use, and the rename gate that
spares resolving calls no rule can own.
"""

from __future__ import annotations

import weakref
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from panic_lens.rust import bindings, modules
from panic_lens.rust.syntax import Node, child_by_field, path_segments

if TYPE_CHECKING:
    from panic_lens.rust.view import FileView


class CallSite:
    """One call: `recv.name(args)` (kind "method"), `a::b::name(args)` ("path") or
    `<T as Trait>::name(args)` ("qualified").

    `path` is the canonical burn path of a path callee (None when not burn's or unknown);
    for a qualified call, `self_type` and `trait_path` are the resolved `T` and `Trait`.
    They are resolved on first use: most rules look at the name first.

    A call site refers to its facts weakly: the facts cache their call sites, and a strong
    reference both ways made every edit's facts (tree, imports, scopes) cyclic garbage that
    only the cycle collector could free, in pauses of up to tens of ms while typing. A call
    site is used while its facts are (rules get both from the engine).
    """

    def __init__(
        self,
        facts: FileView,
        node: Node,
        kind: str,
        name_node: Node,
        args: tuple[Node, ...],
        receiver: Node | None = None,
        owner: Node | None = None,
        callee: Node | None = None,
    ) -> None:
        self._facts_ref = weakref.ref(facts)
        self.node = node
        self.kind = kind
        self.name_node = name_node
        self.name = facts.text(name_node)
        self.args = args
        self.receiver = receiver
        self.owner = owner  # the `a::b` of a path call, the `<T as Trait>` of a qualified one
        self._callee = callee

    def __repr__(self) -> str:
        return f"CallSite({self.kind} {self.name} at {self.node.start_point})"

    @property
    def _facts(self) -> FileView:
        facts = self._facts_ref()
        if facts is None:
            raise ReferenceError("the facts of this call site are gone")
        return facts

    @cached_property
    def path(self) -> str | None:
        if self.kind != "path" or self._callee is None:
            return None
        return self._facts.resolve(self._callee)

    def resolves_to(self, paths: frozenset[str]) -> str | None:
        """`path` when it is one of `paths`, else None; with the facts' renames known, a call
        whose written name (or type before `::name`) cannot end up as one of them is never
        resolved: resolving reads the crate's module files, most calls are nobody's."""
        if self.kind != "path" or self._callee is None:
            return None
        renames = self._facts.renames
        if renames is not None and not self._may_resolve_to(self._callee, paths, renames):
            return None
        path = self.path
        return path if path in paths else None

    def _may_resolve_to(self, callee: Node, paths: frozenset[str], renames: frozenset[str]) -> bool:
        """Sound: resolving replaces a written name by the path its `use` gives, which ends in
        that same name unless the `use` renames it (`as NAME`, NAME in `renames`); canonical
        re-export rewrites change lowercase module segments only."""
        if self.name in renames:
            return True
        owners = _last_names(paths).get(self.name, _NO_TARGET)
        if owners is _NO_TARGET:
            return False
        if owners is None:
            return True
        segments = self._segments
        if not segments or segments[-1] != self.name:
            return bool(segments)  # not the shape reasoned about: resolve
        if len(segments) == 1:
            return True  # `new(..)`: the type comes from the `use`
        owner = segments[-2]
        return owner in owners or owner in renames  # type: ignore[operator]

    @cached_property
    def _segments(self) -> list[str] | None:
        """The callee's path as written (every rule over this call reads it)."""
        return path_segments(self._callee, self._facts.src) if self._callee is not None else None

    @cached_property
    def self_type(self) -> str | None:
        return bindings.type_of_type(self._qualified("type"), self._facts)

    @cached_property
    def trait_path(self) -> str | None:
        return bindings.type_of_type(self._qualified("alias"), self._facts)

    def _qualified(self, field_name: str) -> Node | None:
        if self.kind != "qualified" or self.owner is None or not self.owner.named_children:
            return None
        return child_by_field(self.owner.named_children[0], field_name)


_NO_TARGET = object()


def self_contained_renames(
    src: bytes, reads_other_files: bool, items: list[Node]
) -> frozenset[str] | None:
    """The renames of a file whose names cannot resolve through another file (without a
    check run's crate-wide index): one outside a crate's `src/` (no module loader), or one
    that writes neither `crate` nor `super` (in code, comments or strings alike) and
    declares no out-of-line `mod x;`. None when another file may rename its names."""
    if reads_other_files:
        if b"crate" in src or b"super" in src:
            return None
        if any(i.type == "mod_item" and child_by_field(i, "body") is None for i in items):
            return None
    return modules.use_renames(src)


@lru_cache(maxsize=64)
def _last_names(paths: frozenset[str]) -> dict[str, frozenset[str] | None]:
    """Each target's last segment -> the type names written before it (`AsyncPolicy` of
    `burn::rl::AsyncPolicy::new`), None when some target with that name has no type there
    (a free function: its module segment can be written any way)."""
    out: dict[str, frozenset[str] | None] = {}
    for path in paths:
        *head, last = path.split("::")
        owner = head[-1] if head and head[-1][:1].isupper() else None
        known = out.get(last, frozenset())
        out[last] = None if owner is None or known is None else known | {owner}
    return out

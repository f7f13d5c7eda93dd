"""What the analysis helpers (bindings, calls) read of one file's facts.

`rust.facts.FileFacts` builds the facts and hands itself to those helpers; they are typed
against these protocols instead, so the facade and its helpers do not import each other.
"""

from __future__ import annotations

from typing import Protocol

from panic_lens.rust.names import Imports
from panic_lens.rust.syntax import Node, Tree


class CallView(Protocol):
    """What a helper reads of a call site (`rust.calls.CallSite` is one)."""

    kind: str
    name: str
    owner: Node | None


class FileView(Protocol):
    """What a helper reads of a file's facts (`rust.facts.FileFacts` is one)."""

    src: bytes
    tree: Tree
    imports: Imports
    renames: frozenset[str] | None

    def nodes(self, kind: str) -> list[Node]: ...

    def text(self, node: Node) -> str: ...

    def resolve(self, path: Node | str, at: Node | None = None) -> str | None: ...

    def call_site(self, node: Node) -> CallView | None: ...

"""Helpers for the evaluator's tests: the value or shape of the expression after a marker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panic_lens import evaluate
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import Node, walk

MARK = b"/*here*/"


def marked(src: str, path: str | None = None) -> tuple[FileFacts, Node]:
    """The facts of `src` and the first named node after `/*here*/` (the last marker)."""
    facts = FileFacts.build(src.encode(), path)
    at = facts.src.rindex(MARK) + len(MARK)
    node = next(n for n in walk(facts.tree.root_node) if n.start_byte >= at and n.is_named)
    return facts, node


def value_at(src: str, path: str | None = None) -> Any:
    facts, node = marked(src, path)
    found = evaluate.value_of(node, facts)
    return None if found is None else found.value


def dims_at(src: str, path: str | None = None) -> tuple[Any, ...] | None:
    """The dims of the marked tensor expression (a `Sym` shown by its label), None when not
    even the rank is known."""
    facts, node = marked(src, path)
    found = evaluate.shape_of(node, facts)
    if found is None or found.dims is None:
        return None
    return tuple(d if d is None or isinstance(d, int) else str(d) for d in found.dims)


def crate(tmp: Path, files: dict[str, str]) -> Path:
    """A crate in `tmp` with these files under `src/`; the path of the first one."""
    (tmp / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    first = None
    for name, text in files.items():
        file = tmp / "src" / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
        first = first or file
    assert first is not None
    return first

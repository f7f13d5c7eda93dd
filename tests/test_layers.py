"""The package's layers import in one direction, and no modules import each other in a circle.

Every import counts, also one inside a function or under `if TYPE_CHECKING:`: a circle that
only type checking sees is still a circle for a reader. docs/architecture.md draws the same
layers.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "panic_lens"

# Bottom to top: a module may import its own layer and the layers below it, never above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground", ("panic_lens", "panic_lens.model", "panic_lens.positions", "panic_lens.cachedir")),
    ("rust", ("panic_lens.rust",)),
    ("evaluate", ("panic_lens.evaluate",)),
    ("rules", ("panic_lens.rules", "panic_lens.settings")),
    ("catalog", ("panic_lens.catalog",)),
    (
        "engine",
        (
            "panic_lens.engine",
            "panic_lens.walk",
            "panic_lens.prefilter",
            "panic_lens.cache",
            "panic_lens.batch",
            "panic_lens.batch_workers",
            "panic_lens.function_reanalysis",
            "panic_lens.function_merge",
            "panic_lens.fixing",
        ),
    ),
    (
        "adapters",
        (
            "panic_lens.report",
            "panic_lens.commands",
            "panic_lens.diagnostics",
            "panic_lens.quickstart",
            "panic_lens.lsp",
            "panic_lens.cli",
            "panic_lens.__main__",
        ),
    ),
)
LSP_ONLY = ("pygls", "lsprotocol")  # only panic_lens.lsp may import these, except:
# the quick start answers before pygls's server and lsprotocol are loaded, and reads only
# pygls's path <-> URI helpers (pygls.uris imports neither)
LSP_EXCEPTIONS = {("panic_lens.quickstart", "pygls.uris")}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str) -> set[str]:
    """Every module `name` imports (absolute names, also of other packages)."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in modules() else base)
    return out


def internal_edges() -> dict[str, set[str]]:
    known = modules()
    return {n: {m for m in imported(n) if m in known and m != n} for n in known}


def layer_of(name: str) -> int:
    best, rank = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    return rank


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer() -> None:
    assert [n for n in modules() if layer_of(n) < 0] == []


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{n} ({LAYERS[layer_of(n)][0]}) imports {m} ({LAYERS[layer_of(m)][0]})"
        for n, targets in internal_edges().items()
        for m in sorted(targets)
        if layer_of(m) > layer_of(n)
    ]
    assert upward == []


def test_no_import_circles() -> None:
    assert circles(internal_edges()) == []


def test_only_the_lsp_package_imports_pygls_and_lsprotocol() -> None:
    outside = [
        f"{n} imports {m}"
        for n in modules()
        if not (n == "panic_lens.lsp" or n.startswith("panic_lens.lsp."))
        for m in sorted(imported(n))
        if m.split(".")[0] in LSP_ONLY and (n, m) not in LSP_EXCEPTIONS
    ]
    assert outside == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_circle_finder_finds_circles(
    edges: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert circles(edges) == expected


def test_the_layer_check_sees_a_real_upward_import() -> None:
    # rust/ sits below rules/: the check must notice if rust/facts imported rules/meta
    assert layer_of("panic_lens.rust.facts") < layer_of("panic_lens.rules.meta")
    assert "panic_lens.rust.syntax" in imported("panic_lens.rust.facts")

"""Static integers and tensor shapes: literals, consts of the file and the crate, let-bound values.

`eval_int` and `shape_of` answer only what the source states; anything computed at run time
gives None, so a rule built on them stays silent instead of guessing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from panic_lens.model import Span
from panic_lens.rust.burn_api import TENSOR_CONSTRUCTORS, TENSOR_FROM
from panic_lens.rust.locals import find_binding
from panic_lens.rust.syntax import Node, child_by_field, node_text, parse, path_segments, span_of

MAX_DEPTH = 24  # bounds const-to-const and let-to-let chains (and cycles like `const A = B`)
# fmt: off
_INT_SUFFIXES = ("usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16",
                 "u8", "i8")
_PRIMITIVES = frozenset((*_INT_SUFFIXES, "f32", "f64", "char", "bool"))
def _div(a: int, b: int) -> int | None:
    """Rust's integer division: truncating toward zero; None for a division by zero."""
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _rem(a: int, b: int) -> int | None:
    """Rust's `%`: the sign of the dividend."""
    q = _div(a, b)
    return None if q is None else a - b * q


def _shl(a: int, b: int) -> int | None:
    return a << b if 0 <= b < 128 else None


_BINARY = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "/": _div, "%": _rem,
           "<<": _shl}  # fmt: skip
_TENSOR_CTORS = TENSOR_CONSTRUCTORS
# Methods that keep a tensor's shape: the width of `t.clone().to_device(d)` is the width of t.
_SAME_SHAPE = frozenset({"clone", "to_device", "into_primitive", "detach", "require_grad",
                         "set_require_grad", "int", "float", "cast", "abs", "neg", "add_scalar",
                         "sub_scalar", "mul_scalar", "clamp", "contiguous", "convert"})
# fmt: on


@dataclass(frozen=True, slots=True)
class IntFact:
    """An integer known statically, and where it is written (`path` None: the same file)."""

    value: int
    origin: Span
    note: str = ""  # e.g. "const MAX_LEN" or "let width"
    path: str | None = None


@dataclass(frozen=True, slots=True)
class ShapeFact:
    """The dims of a tensor expression (None for a dim not known statically)."""

    dims: tuple[IntFact | None, ...]
    origin: Span
    note: str = ""  # e.g. "Tensor::zeros", ".reshape", "TensorData::new"
    path: str | None = None


@dataclass(frozen=True, slots=True)
class _Ctx:
    """One file as consts sees it: its bytes, its path, the crate's source folder."""

    src: bytes
    path: str | None
    src_root: Path | None  # None: no crate-wide const lookup from this file
    root: Node | None = None  # the parsed file, when the caller already has it
    # the crate's files that declare a name, in walk order (a `check` run's index,
    # `CrateMemo.declaring`); None: walk the crate's files at each lookup
    declaring: Callable[[bytes], list[str]] | None = None


def eval_int(node: Node | None, facts: Any) -> IntFact | None:
    """The integer value of an expression, when the source states it."""
    return _int(node, _ctx_of(facts), 0)


def shape_of(node: Node | None, facts: Any) -> ShapeFact | None:
    """The static shape of a tensor expression, following let-bound locals in the same fn."""
    return _shape(node, _ctx_of(facts), 0)


def _ctx_of(facts: Any) -> _Ctx:
    """The file as consts sees it, made once per facts (kept in their `memo`, if any)."""
    memo = getattr(facts, "memo", None)
    if isinstance(memo, dict):
        found = memo.get(_CTX_KEY)
        if found is None:
            found = memo[_CTX_KEY] = _new_ctx(facts)
        return found
    return _new_ctx(facts)


_CTX_KEY = ("consts", "ctx")


def _new_ctx(facts: Any) -> _Ctx:
    path = getattr(facts, "path", None)
    crate = getattr(facts, "crate", None)
    manifest = getattr(crate, "manifest", None)
    src_root = Path(manifest).parent / "src" if manifest else None
    tree = getattr(facts, "tree", None)
    root = tree.root_node if tree is not None else None
    memo = getattr(facts, "crate_memo", None)
    declaring = partial(memo.declaring, src_root) if memo is not None and src_root else None
    return _Ctx(facts.src, str(path) if path is not None else None, src_root, root, declaring)


# --- integers -------------------------------------------------------------------------------


def _int(node: Node | None, ctx: _Ctx, depth: int) -> IntFact | None:
    if node is None or depth > MAX_DEPTH:
        return None
    kind = node.type
    if kind == "integer_literal":
        value = parse_int_literal(node_text(node, ctx.src))
        return None if value is None else IntFact(value, span_of(node), path=ctx.path)
    if kind in ("parenthesized_expression", "type_cast_expression"):
        return _int(_first_inner(node), ctx, depth + 1)
    if kind == "unary_expression" and node_text(node, ctx.src).startswith("-"):
        neg = _int(_first_inner(node), ctx, depth + 1)
        return None if neg is None else IntFact(-neg.value, span_of(node), path=ctx.path)
    if kind == "binary_expression":
        return _binary(node, ctx, depth)
    if kind == "identifier":
        return _named(node, ctx, depth)
    if kind == "scoped_identifier":
        segments = path_segments(node, ctx.src)
        if not segments or (len(segments) > 1 and segments[-2] in _PRIMITIVES):
            return None  # usize::MAX and friends: never a width anyone pads to
        return _const_anywhere(segments[-1], ctx, depth)
    return None


def _first_inner(node: Node) -> Node | None:
    inner = child_by_field(node, "value")
    return inner if inner is not None else (node.named_children[0] if node.named_children else None)


def parse_int_literal(text: str) -> int | None:
    """`5_000usize` -> 5000, `0x1F` -> 31, `0b101` -> 5; None for anything else."""
    text = text.replace("_", "").lower()
    for suffix in _INT_SUFFIXES:
        if text.endswith(suffix):  # no suffix starts with a hex digit, so 0xffu8 is safe
            text = text[: -len(suffix)]
            break
    try:
        return int(text, 0) if text[:2] in ("0x", "0o", "0b") else int(text, 10)
    except ValueError:
        return None


def _binary(node: Node, ctx: _Ctx, depth: int) -> IntFact | None:
    op = child_by_field(node, "operator")
    fn = _BINARY.get(node_text(op, ctx.src)) if op is not None else None
    if fn is None:
        return None
    left = _int(child_by_field(node, "left"), ctx, depth + 1)
    right = _int(child_by_field(node, "right"), ctx, depth + 1) if left else None
    if left is None or right is None:
        return None
    note = left.note if left.note and not right.note else right.note or left.note
    value = fn(left.value, right.value)
    return IntFact(value, span_of(node), note, ctx.path) if value is not None else None


def _named(ident: Node, ctx: _Ctx, depth: int) -> IntFact | None:
    name = node_text(ident, ctx.src)
    found, value = local_value(ident, ctx.src, ctx.root)
    if found:
        fact = _int(value, ctx, depth + 1)
        if fact is None or value is None:
            return None
        return IntFact(fact.value, span_of(value), f"let {name}", ctx.path)
    return _const_anywhere(name, ctx, depth)


def _const_anywhere(name: str, ctx: _Ctx, depth: int) -> IntFact | None:
    """A const/static of this file, else of the crate; None when missing or ambiguous."""
    root = ctx.root if ctx.root is not None else parse(ctx.src).root_node
    facts = _consts_named(root, name, ctx, depth)
    if facts is None:
        for other in _crate_files(ctx, name):
            found = _consts_named(other.root, name, other, depth) if other.root else None
            if found is not None:
                facts = (facts or []) + found
    if not facts or len({f.value for f in facts}) != 1:
        return None
    return facts[0]


def _consts_named(root: Node, name: str, ctx: _Ctx, depth: int) -> list[IntFact] | None:
    """Values of the consts called `name` in one file: None when there is none; [] when one
    exists but cannot be evaluated (the name is then unknown, not looked up elsewhere)."""
    out: list[IntFact] | None = None
    for item in _const_items(root, ctx.src, name):
        value = child_by_field(item, "value")
        fact = _int(value, ctx, depth + 1)
        if fact is None or value is None:
            return []
        out = (out or []) + [IntFact(fact.value, span_of(value), f"const {name}", ctx.path)]
    return out


def _const_items(root: Node, src: bytes, name: str) -> Iterator[Node]:
    """`const NAME` / `static NAME` items anywhere in the file (modules, impls, fn bodies)."""
    # One walk per file, not one per looked-up name: walking per name made a file with many
    # calls quadratic (a 250 KB file took over a minute).
    hit = _CONST_INDEX.get(id(src))
    if hit is None or hit[0] is not src or hit[1] != root:
        if len(_CONST_INDEX) >= _CONST_INDEX_SIZE:
            _CONST_INDEX.clear()
        hit = _CONST_INDEX[id(src)] = (src, root, _index_consts(root, src))
    yield from hit[2].get(name, ())


_CONST_INDEX_SIZE = 8  # files indexed at once (the src is held, so its id cannot be reused)
_CONST_INDEX: dict[int, tuple[bytes, Node, dict[str, list[Node]]]] = {}


def _index_consts(root: Node, src: bytes) -> dict[str, list[Node]]:
    """Every const/static item of the file by name, in source order."""
    index: dict[str, list[Node]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("const_item", "static_item"):
            ident = child_by_field(node, "name")
            if ident is not None:
                index.setdefault(node_text(ident, src), []).append(node)
            continue
        stack.extend(reversed(node.named_children))
    return index


# --- locals ---------------------------------------------------------------------------------


def local_value(ident: Node, src: bytes, root: Node | None = None) -> tuple[bool, Node | None]:
    """(found, value) for the local `ident` names at its position inside a fn.

    found=False: no local of that name (a const may apply). found=True with value None: a
    parameter, a pattern or a branch binds it, so its value is not known statically.
    """
    binding = find_binding(ident, src, root)  # root: linear in deep expressions
    if binding is None:
        return False, None
    return True, binding.value if binding.kind in ("let", "assign") else None


# --- consts of the other files of the crate -------------------------------------------------

# path -> (mtime_ns, size, src, the const and static names it declares, tree once parsed)
_FILE_CACHE: dict[str, tuple[int, int, bytes, frozenset[bytes], Any]] = {}


def _crate_files(ctx: _Ctx, name: str) -> Iterator[_Ctx]:
    """The crate's other source files that mention `name`, parsed once per mtime."""
    if ctx.src_root is None or not ctx.src_root.is_dir():
        return
    # only files that declare the name are parsed: `N` is in every file, `const N:` is not
    needle = name.encode()
    paths = ctx.declaring(needle) if ctx.declaring is not None else _sources(ctx.src_root)
    for path in paths:
        if _same_file(path, ctx.path):
            continue
        hit = _read_cached(path, needle)
        if hit is not None:
            yield _Ctx(hit[0], path, None, hit[1].root_node)


def _sources(src_root: Path) -> Iterator[str]:
    """The `.rs` files under `src_root`, hidden folders left out, in a stable order."""
    for dirpath, dirnames, filenames in os.walk(src_root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for file in sorted(filenames):
            if file.endswith(".rs"):
                yield os.path.join(dirpath, file)


def declared_index(src_root: Path, read: Callable[[str], bytes]) -> dict[bytes, list[str]]:
    """The `.rs` files under `src_root` by each const and static name they declare, in the
    order `_crate_files` walks them (files `read` cannot read are left out)."""
    index: dict[bytes, list[str]] = {}
    for path in _sources(src_root):
        try:
            src = read(path)
        except OSError:
            continue
        for name in dict.fromkeys(m.group(1) for m in _DECLARED.finditer(src)):
            index.setdefault(name, []).append(path)
    return index


def _same_file(a: str, b: str | None) -> bool:
    return b is not None and os.path.abspath(a) == os.path.abspath(b)


# `const NAME:` / `static mut NAME:` (a declaration, found by bytes before any parse)
_DECLARED = re.compile(rb"\b(?:const|static)\s+(?:mut\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:")


def _read_cached(path: str, name: bytes) -> tuple[bytes, Any] | None:
    """(src, tree) of a file that declares a const or static `name`; other files are never
    parsed. A file's declared names are read once per version of the file."""
    try:
        st = os.stat(path)
        hit = _FILE_CACHE.get(path)
        if hit is None or hit[0] != st.st_mtime_ns or hit[1] != st.st_size:
            with open(path, "rb") as fh:
                src = fh.read()
            declared = frozenset(m.group(1) for m in _DECLARED.finditer(src))
            hit = (st.st_mtime_ns, st.st_size, src, declared, None)
    except OSError:
        return None
    if name not in hit[3]:
        _FILE_CACHE[path] = hit
        return None
    if hit[4] is None:
        hit = (*hit[:4], parse(hit[2]))
    _FILE_CACHE[path] = hit
    return hit[2], hit[4]


# --- shapes ---------------------------------------------------------------------------------


def _shape(node: Node | None, ctx: _Ctx, depth: int) -> ShapeFact | None:
    while node is not None and node.type in ("parenthesized_expression", "reference_expression"):
        node = _first_inner(node)
    if node is None or depth > MAX_DEPTH:
        return None
    if node.type == "identifier":
        found, value = local_value(node, ctx.src, ctx.root)
        return _shape(value, ctx, depth + 1) if found else None
    if node.type == "array_expression":
        return _array_shape(node, ctx, depth)
    if node.type == "call_expression":
        return _call_shape(node, ctx, depth)
    return None


def _call_shape(call: Node, ctx: _Ctx, depth: int) -> ShapeFact | None:
    callee = child_by_field(call, "function")
    turbofish = child_by_field(callee, "type_arguments")  # `.unsqueeze::<2>()`
    if callee is not None and callee.type == "generic_function":
        callee = child_by_field(callee, "function")
    args = child_by_field(call, "arguments")
    items = [a for a in (args.named_children if args else []) if "comment" not in a.type]
    if callee is None:
        return None
    if callee.type == "field_expression":
        shape = _method_shape(callee, items, ctx, depth)
        return shape if shape is not None else _unsqueezed(callee, items, turbofish, ctx, depth)
    segments = path_segments(callee, ctx.src) or []
    if len(segments) < 2 or not items:
        return None
    owner, fn = segments[-2], segments[-1]
    if owner == "Tensor" and fn == "arange":  # its argument is a range, not a shape
        return _arange(items[0], ctx, depth, call)
    if owner == "Tensor" and fn in _TENSOR_CTORS:
        return _dims_arg(items[0], ctx, depth, f"Tensor::{fn}", call)
    if owner == "Tensor" and fn in TENSOR_FROM:
        return _shape(items[0], ctx, depth + 1)
    if owner == "TensorData" and fn == "new" and len(items) >= 2:
        return _dims_arg(items[1], ctx, depth, "TensorData::new", call)
    if owner == "TensorData" and fn == "from":
        return _shape(items[0], ctx, depth + 1)
    return None


def _method_shape(callee: Node, items: list[Node], ctx: _Ctx, depth: int) -> ShapeFact | None:
    name_node, receiver = child_by_field(callee, "field"), child_by_field(callee, "value")
    name = node_text(name_node, ctx.src) if name_node is not None else ""
    if name == "reshape" and items and callee.parent is not None:
        return _dims_arg(items[0], ctx, depth, ".reshape", callee.parent, reshape=True)
    if name in _SAME_SHAPE:
        return _shape(receiver, ctx, depth + 1)
    return None


def _unsqueezed(
    callee: Node, items: list[Node], turbofish: Node | None, ctx: _Ctx, depth: int
) -> ShapeFact | None:
    """`x.unsqueeze_dim(i)` inserts a 1 at i; `x.unsqueeze::<D>()` prepends 1s up to rank D."""
    name_node = child_by_field(callee, "field")
    name = node_text(name_node, ctx.src) if name_node is not None else ""
    if name not in ("unsqueeze", "unsqueeze_dim"):
        return None
    inner = _shape(child_by_field(callee, "value"), ctx, depth + 1)
    if inner is None or callee.parent is None:
        return None
    one = IntFact(1, span_of(callee.parent), f".{name}", ctx.path)
    if name == "unsqueeze_dim":
        at = _int(items[0], ctx, depth + 1) if len(items) == 1 else None
        if at is None or not 0 <= at.value <= len(inner.dims):
            return None
        dims = (*inner.dims[: at.value], one, *inner.dims[at.value :])
        return ShapeFact(dims, inner.origin, inner.note, inner.path)
    rank_node = turbofish.named_children[0] if turbofish and turbofish.named_children else None
    rank = _int(rank_node, ctx, depth + 1)
    if rank is None or rank.value < len(inner.dims):
        return None
    dims = (one,) * (rank.value - len(inner.dims)) + inner.dims
    return ShapeFact(dims, inner.origin, inner.note, inner.path)


def _arange(item: Node, ctx: _Ctx, depth: int, call: Node) -> ShapeFact | None:
    """`Tensor::arange(a..b, d)`: one dimension of b - a elements (none when b < a)."""
    arg: Node | None = item
    while arg is not None and arg.type == "parenthesized_expression":
        arg = _first_inner(arg)
    if arg is None or arg.type != "range_expression" or "..=" in node_text(arg, ctx.src):
        return None
    bounds = list(arg.named_children)
    if len(bounds) != 2:
        return None
    start, end = (_int(b, ctx, depth + 1) for b in bounds)
    if start is None or end is None:
        return None
    count = max(end.value - start.value, 0)
    return ShapeFact(
        (IntFact(count, span_of(arg), path=ctx.path),), span_of(call), "Tensor::arange", ctx.path
    )


def _dims_arg(
    arg: Node | None, ctx: _Ctx, depth: int, note: str, call: Node, *, reshape: bool = False
) -> ShapeFact | None:
    """A shape argument: `[N, S]`, `Shape::new([N, S])`, or a local bound to one of those."""
    arg = _follow_local(arg, ctx)
    inner = _shape_ctor_arg(arg, ctx) if arg is not None else None
    if inner is not None:  # Shape::new([..]) / Shape::from([..])
        return _dims_arg(inner, ctx, depth + 1, note, call, reshape=reshape)
    if arg is None or arg.type != "array_expression" or child_by_field(arg, "length"):
        return None
    dims = tuple(_int(d, ctx, depth + 1) for d in arg.named_children if "comment" not in d.type)
    if reshape:  # burn's reshape takes -1 (infer) and 0 (keep): not a width we can state
        dims = tuple(d if d is not None and d.value > 0 else None for d in dims)
    return ShapeFact(dims, span_of(call), note, ctx.path)


def _shape_ctor_arg(node: Node, ctx: _Ctx) -> Node | None:
    """The array inside `Shape::new([..])` / `Shape::from([..])`, else None."""
    callee = child_by_field(node, "function") if node.type == "call_expression" else None
    segments = path_segments(callee, ctx.src) if callee is not None else None
    if not segments or segments[-2:] not in (["Shape", "new"], ["Shape", "from"]):
        return None
    args = child_by_field(node, "arguments")
    return args.named_children[0] if args is not None and args.named_children else None


def _follow_local(node: Node | None, ctx: _Ctx) -> Node | None:
    for _ in range(MAX_DEPTH):
        if node is None or node.type != "identifier":
            return node
        found, node = local_value(node, ctx.src, ctx.root)
        if not found:
            return None
    return None


def _array_shape(array: Node, ctx: _Ctx, depth: int) -> ShapeFact | None:
    """Dims of a nested array literal: `[[1, 2], [3, 4]]` -> (2, 2); `[[0; 9]; 2]` -> (2, 9)."""
    dims: list[IntFact | None] = []
    node: Node | None = array
    while node is not None and node.type == "array_expression" and len(dims) < 8:
        length = child_by_field(node, "length")
        elems = [c for c in node.named_children if c != length and "comment" not in c.type]
        if length is not None:
            dims.append(_int(length, ctx, depth + 1))
        else:
            dims.append(IntFact(len(elems), span_of(node), "array literal", ctx.path))
        node = elems[0] if elems else None
    return ShapeFact(tuple(dims), span_of(array), "array literal", ctx.path)

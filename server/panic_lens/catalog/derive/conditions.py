"""Stage 3b, translating guards to conditions: a chain's path items (`if`, `else`, `for`,
`if let`, match arms) become one CEL condition (`cel`), and a function's tensor generics
become the ranks the condition reads (`tensor_ranks`, `result_rank`).
"""

from __future__ import annotations

import re
from typing import Any

from panic_lens.catalog.derive.model import Unmapped, split_args
from panic_lens.catalog.derive.translate import DIM_INDEX, Translator, balanced, from_start
from panic_lens.rust.burn_api import tensor_type_args

_KINDS = frozenset({"Float", "Int", "Bool", "K"})


def tensor_ranks(params: list[list[str]]) -> dict[str, str]:
    """The rank generics of a function's tensor parameters: `x: Tensor<D>` (burn 0.22,
    `Tensor<D, Int>`) or `Tensor<B, D>` (0.21) makes `D` `x`'s rank."""
    ranks: dict[str, str] = {}
    for name, type_ in params:
        generic = _rank_generic(type_)
        if generic is not None and re.fullmatch(r"[a-z_]\w*", name):
            ranks.setdefault(generic, f"{name}.rank")
    return ranks


def result_rank(fn: dict[str, Any]) -> str | None:
    """The rank generic of the tensor `fn` returns: `D` of a Tensor function returning `Self`
    (`Tensor::<D>::ones`), `D2` of `-> Tensor<D2>` (`flatten::<D2>`); the language reads it
    as `result.rank`, the rank the caller's code states for the value."""
    returns = str(fn.get("returns") or "")
    if returns == "Self":
        return "D" if fn["owner"] == "Tensor" else None
    return _rank_generic(returns)


def _rank_generic(type_text: str) -> str | None:
    """The const generic naming a Tensor type's rank (`D` of `Tensor<D, Int>` or of
    `Tensor<B, D>`), None for another type or a rank written as a number."""
    args = tensor_type_args(type_text)
    if args is None:
        return None
    if len(args) >= 2 and args[0] == "B":
        args = args[1:]
    if args and re.fullmatch(r"[A-Z]\w*", args[0]) and args[0] not in _KINDS:
        return args[0]
    return None


def _tuple_parts(text: str) -> list[str]:
    """`(a, b)` -> [a, b]; anything else is one value."""
    inner = text.strip()
    while inner.startswith("(") and inner.endswith(")") and balanced(inner[1:-1]):
        parts = split_args(inner[1:-1])
        if len(parts) > 1:
            return parts
        inner = inner[1:-1].strip()
    return [text]


def _match(translator: Translator, values: list[str], pattern: str) -> tuple[str, dict[str, str]]:
    """The condition under which `values` match `pattern` ("" when always) and the names
    the pattern binds; a tuple pattern matches element by element."""
    pats = _tuple_parts(pattern) if len(values) > 1 else [pattern.strip()]
    if len(pats) != len(values):
        raise Unmapped(f"the pattern `{pattern}`")
    conds: list[str] = []
    binds: dict[str, str] = {}
    for value, pat in zip(values, pats, strict=True):
        pat = pat.strip()
        some = re.fullmatch(r"Some\(\s*(?:ref\s+)?(\w+)\s*\)", pat)
        if pat == "_":
            continue
        if some:
            conds.append(f"{value} != null")
            if some.group(1) != "_":
                binds[some.group(1)] = value
        elif re.fullmatch(r"[a-z_]\w*", pat):
            binds[pat] = value
        else:
            conds.append(translator.pattern(value, pat))
    return " && ".join(conds), binds


def _dim_index_arm(
    translator: Translator, values: list[str], pattern: str, bound: dict[str, str]
) -> tuple[str, dict[str, str]] | None:
    """`match dim.try_dim_index(D) { Ok(d) => .., Err(e) => .. }`, burn-tensor's dim check:
    `Err` when the dim is outside [-D, D) (a negative one counts from the end), `Ok(d)` binds
    the dim counted from the start. None for other matches."""
    found = DIM_INDEX.fullmatch(values[0].strip()) if len(values) == 1 else None
    ok = re.fullmatch(r"Ok\(\s*(\w+)\s*\)", pattern)
    if found is None or not (ok or re.fullmatch(r"Err\(\s*\w+\s*\)", pattern)):
        return None
    rank = translator.scope.ranks.get(found.group(2))
    if rank is None:
        raise Unmapped(f"the rank `{found.group(2)}` (not a tensor's)")
    dim = translator.expr(found.group(1), bound)
    inside = f"(-{rank} <= {dim} && {dim} < {rank})"
    if not ok:
        return f"!{inside}", {}
    name = ok.group(1)
    binds = {} if name == "_" else {name: from_start(dim, rank)}
    return inside, binds


def cel(items: tuple[tuple[str, ...], ...], translator: Translator, bound: dict[str, str]) -> str:
    """The conjunction of the path items (a `for` wraps what follows in `.exists`)."""
    parts: list[str] = []
    for position, item in enumerate(items):
        kind = item[0]
        if kind == "if":
            parts.append(f"({translator.expr(item[1], bound)})")
        elif kind == "else":
            parts.append(f"!({translator.expr(item[1], bound)})")
        elif kind == "for":
            var = item[1].lstrip("&").strip()
            if not re.fullmatch(r"[a-z_]\w*", var):
                index, binds = _indexed_loop(item[1], item[2], translator, bound)
                rest = cel(items[position + 1 :], translator, {**bound, **binds}) or "true"
                parts.append(f"{index}.exists({_INDEX}, {rest})")
                return " && ".join(parts)
            iterable = translator.expr(item[2], bound)
            rest = cel(items[position + 1 :], translator, {**bound, var: var}) or "true"
            parts.append(f"{iterable}.exists({var}, {rest})")
            return " && ".join(parts)
        elif kind == "iflet":
            found = re.fullmatch(r"Some\(\s*(?:ref\s+)?(\w+)\s*\)", item[1])
            value = translator.expr(item[2], bound)
            if found:
                parts.append(f"{value} != null")
                bound = {**bound, found.group(1): value}
            else:
                parts.append(translator.pattern(value, item[1]))
        elif kind == "arm":
            values = _tuple_parts(item[1])
            checked = _dim_index_arm(translator, values, item[2].strip(), bound)
            if checked is not None:
                parts.append(checked[0])
                bound = {**bound, **checked[1]}
                continue
            cels = [translator.expr(v, bound) for v in values]
            pattern = item[2].strip()
            if pattern == "_" or re.fullmatch(r"[a-z_]\w*", pattern):
                # a catch-all: none of the earlier arms matched (and it may bind the value)
                for earlier in item[3:]:
                    cond, _ = _match(translator, cels, earlier)
                    parts.append(f"!({cond})" if cond else "false")
                if pattern != "_" and len(cels) == 1:
                    bound = {**bound, pattern: cels[0]}
            else:
                cond, binds = _match(translator, cels, pattern)
                if cond:
                    parts.append(cond)
                bound = {**bound, **binds}
        elif kind == "opaque":
            raise Unmapped(f"a panic in {item[1]} (it may not run)")
        else:
            raise Unmapped(f"`{' '.join(item)}`")
    return " && ".join(parts)


_INDEX = "idx"  # the position a loop over indices walks (`indices(list).exists(idx, ..)`)
_ADAPTERS = re.compile(r"(?:\s*\.\s*(?:iter|into_iter|copied|cloned)\(\s*\))+$")


def _indexed_loop(
    pattern: str, iterable: str, translator: Translator, bound: dict[str, str]
) -> tuple[str, dict[str, str]]:
    """A loop whose pattern takes its items apart, over a list, `.enumerate()`d or `.zip`ped
    with another (`for (i, (tl, il)) in targets.iter().zip(inputs).enumerate()`): the
    `indices(..)` of the (first) list it walks, and the names the pattern binds, each the
    item of its list at `idx` (a zip stops at the shorter list: the longer one's extra items
    are never read, and an item past the other's end is an error, so no finding)."""
    text = iterable.strip()
    enumerated = re.fullmatch(r"(.+)\.\s*enumerate\(\s*\)", text, re.S)
    if enumerated:
        text = enumerated.group(1)
    lists = [text]
    zipped = re.fullmatch(r"(.+?)\.\s*zip\((.+)\)", text, re.S)
    if zipped and balanced(zipped.group(2)):
        lists = [zipped.group(1), zipped.group(2)]
    cels = [translator.expr(_ADAPTERS.sub("", part.strip()), bound) for part in lists]
    item = cels[0] + f"[{_INDEX}]" if len(cels) == 1 else None
    parts = [pattern]
    if enumerated:
        parts = _tuple_parts(pattern)
        if len(parts) != 2:
            raise Unmapped(f"the loop pattern `{pattern}`")
    binds: dict[str, str] = {}
    if enumerated:
        _bind(parts[0], _INDEX, binds, pattern)
    element = parts[-1].strip().lstrip("&").strip()
    if item is not None:
        _bind(element, item, binds, pattern)
    else:
        pieces = _tuple_parts(element)
        if len(pieces) != len(cels):
            raise Unmapped(f"the loop pattern `{pattern}`")
        for piece, value in zip(pieces, cels, strict=True):
            _bind(piece, f"{value}[{_INDEX}]", binds, pattern)
    return f"indices({cels[0]})", binds


def _bind(pattern: str, value: str, binds: dict[str, str], whole: str) -> None:
    """The names `pattern` binds in `value`: a name, `_`, or a tuple of those (`&(a, b)`)."""
    pattern = pattern.strip().lstrip("&").strip()
    if pattern == "_":
        return
    if re.fullmatch(r"[a-z_]\w*", pattern):
        binds[pattern] = value
        return
    pieces = _tuple_parts(pattern)
    if len(pieces) < 2:
        raise Unmapped(f"the loop pattern `{whole}`")
    for index, piece in enumerate(pieces):
        _bind(piece, f"{value}[{index}]", binds, whole)

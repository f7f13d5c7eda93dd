"""rust/consts against Python: random `+ - *` expressions over Rust integer literals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from panic_lens.rust.consts import eval_int
from panic_lens.rust.syntax import child_by_field, parse


@dataclass
class _Facts:
    src: bytes
    tree: Any
    path: str | None = None
    crate: None = None


SUFFIXES = ["", "usize", "u32", "i64", "_u64"]


@st.composite
def literal(draw: st.DrawFn) -> str:
    """A Rust integer literal: decimal, with underscores, hex or binary, maybe suffixed."""
    value = draw(st.integers(min_value=0, max_value=100_000))
    style = draw(st.sampled_from(["dec", "under", "hex", "bin"]))
    text = {"dec": str(value), "under": f"{value:_}", "hex": hex(value), "bin": bin(value)}[style]
    return text + draw(st.sampled_from(SUFFIXES))


def expression(depth: int = 3) -> st.SearchStrategy[str]:
    if depth == 0:
        return literal()
    sub = expression(depth - 1)
    binary = st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(" ".join)
    return st.one_of(literal(), binary, sub.map(lambda e: f"({e})"))


@settings(max_examples=200, deadline=None)
@given(expression())
def test_eval_int_agrees_with_python(text: str) -> None:
    src = f"const X: i128 = {text};\nfn f() {{ let y = X; }}"
    facts = _Facts(src.encode(), parse(src.encode()))
    value_node = child_by_field(facts.tree.root_node.named_children[0], "value")
    # Python's own precedence over the same text (minus Rust suffixes) is the oracle
    python_text = text
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if suffix:
            python_text = python_text.replace(suffix, "")
    fact = eval_int(value_node, facts)
    assert fact is not None
    assert fact.value == eval(
        python_text.replace("_", "")
    )  # the text holds digits, + - * and parentheses only
    assert not facts.tree.root_node.has_error

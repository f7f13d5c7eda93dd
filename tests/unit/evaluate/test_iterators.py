"""evaluate.iterators: iterator chains over lists whose items are known, closures evaluated
per item; anything not followed (a run-time item, a closure without a value, an adapter not
read) leaves the chain unknown."""

from __future__ import annotations

import pytest
from evaluate_helpers import value_at

ITEMS = "const XS: [usize; 3] = [3, 0, 5];\nconst EMPTY: [usize; 0] = [];\n"
FN = "fn f(n: usize, v: Vec<usize>) {\n    g(/*here*/EXPR);\n}\n"


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("XS.iter().sum::<usize>()", 8),
        ("XS.iter().product::<usize>()", 0),
        ("XS.iter().copied().min().unwrap_or(1)", 0),
        ("XS.iter().max()", 5),
        ("EMPTY.iter().copied().max().unwrap_or(4)", 4),
        ("XS.iter().map(|x| x * 2).collect::<Vec<_>>()", [6, 0, 10]),
        ("XS.iter().copied().filter(|&x| x > 0).collect::<Vec<usize>>()", [3, 5]),
        ("XS.iter().filter(|x| **x > 0).count()", 2),
        ("XS.iter().rev().collect::<Vec<_>>()", [5, 0, 3]),
        ("XS.iter().skip(1).sum::<usize>()", 5),
        ("XS.iter().take(2).count()", 2),
        ("XS.iter().step_by(2).collect::<Vec<_>>()", [3, 5]),
        ("XS.iter().enumerate().count()", 3),
        ("XS.iter().zip(EMPTY.iter()).count()", 0),
        ("XS.iter().chain(XS.iter()).count()", 6),
        ("XS.windows(2).map(|w| w[1] as i64 - w[0] as i64).collect::<Vec<_>>()", [-3, 5]),
        ("XS.chunks(2).count()", 2),
        ("XS.first().copied().unwrap_or(7)", 3),
        ("EMPTY.last().copied().unwrap_or(7)", 7),
        ("XS.contains(&0)", True),
        ("XS.iter().any(|&x| x == 0)", True),
        ("XS.iter().all(|&x| x > 0)", False),
        ("XS.iter().position(|&x| x == 5)", 2),
        ("(0..4).map(|i| i * i).sum::<usize>()", 14),
        ("(1..=3).product::<usize>()", 6),
        ("XS.iter().map(|&x| x as f32 / 2.0).sum::<f32>()", 4.0),
        ("XS.iter().fold(0, |acc, w| acc + w)", 8),
        ("XS.iter().fold(1, |a, &x| a * (x + 1))", 24),
        ("XS.iter().fold(0, |a, x| a.max(*x))", 5),
    ],
)
def test_chains_over_known_items(expr: str, value: object) -> None:
    assert (
        value_at(f"{ITEMS}fn f(n: usize, v: Vec<usize>) {{\n    g(/*here*/{expr});\n}}\n") == value
    )


@pytest.mark.parametrize(
    "expr",
    [
        "XS.iter().map(|x| x * n).collect::<Vec<_>>()",  # a run-time value in the closure
        "v.iter().sum::<usize>()",  # a parameter's items
        "XS.iter().filter(|x| check(**x)).count()",  # a call not followed
        "XS.iter().enumerate().map(|(i, x)| x + i).sum::<usize>()",  # a tuple pattern
        "XS.windows(0).count()",  # burn's own code would panic first: windows(0) panics
        "(0..n).sum::<usize>()",
        "(0..1000).count()",  # longer than the items followed
        "XS.iter().fold(0, |a, x| a + x * n)",  # a run-time value in the fold
        "XS.iter().scan(0, |a, x| Some(*a + x)).count()",  # an adapter not read
    ],
)
def test_chains_not_followed_stay_unknown(expr: str) -> None:
    assert (
        value_at(f"{ITEMS}fn f(n: usize, v: Vec<usize>) {{\n    g(/*here*/{expr});\n}}\n") is None
    )


def test_a_changed_value_is_read_after_its_plain_changes_only() -> None:
    body = "let mut w = vec![1, 2];\n    w.push(3);\n    g(/*here*/w.iter().sum::<usize>())"
    assert value_at(f"{ITEMS}fn f(n: usize) {{\n    {body};\n}}\n") == 6
    body = body.replace("w.push(3);", "if n > 1 { w.push(3); }")
    assert value_at(f"{ITEMS}fn f(n: usize) {{\n    {body};\n}}\n") is None

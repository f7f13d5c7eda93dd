"""evaluate.lengths: the number of items of a list whose items need not be known (arrays,
ranges collected through adapters that keep one item per item, a crate function's list,
branches that agree); unknown wherever items may be dropped, added or changed."""

from __future__ import annotations

import pytest
from evaluate_helpers import marked

from panic_lens import evaluate


def length_at(body: str, items: str = "") -> int | None:
    """The length of the expression after `/*here*/` in `body` (a function body), with
    `items` (functions, consts) beside the function."""
    facts, node = marked(f"{items}\nfn f(flag: bool, n: usize, xs: Vec<f32>) {{\n{body}\n}}\n")
    return evaluate.length_of(node, facts)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("g(/*here*/vec![0.0; 784]);", 784),
        ("g(/*here*/[a, b, c]);", 3),
        ("const N: usize = 6;\ng(/*here*/vec![x; N * 2]);", 12),
        ("g(/*here*/(0..10).map(|i| i as f32).collect::<Vec<_>>());", 10),
        ("g(/*here*/(2..=5).map(|i| i * 2).collect());", 4),
        ("g(/*here*/(5..2).collect());", 0),
        ("let v = vec![1.0; 4];\ng(/*here*/v.iter().enumerate().map(|(i, x)| x).collect());", 4),
        ("let v: Vec<f32> = (0..8).map(|i| i as f32).collect();\ng(/*here*/v.clone());", 8),
        ("g(/*here*/(0..10).map(|i| i).take(4).collect());", 4),
        ("g(/*here*/(0..10).skip(4).collect());", 6),
        ("g(/*here*/Some(vec![1.0; 3]));", 3),
        ("g(/*here*/if flag { vec![1.0, 0.0] } else { vec![0.0, 1.0] });", 2),
        ("g(/*here*/if true { vec![1.0; 3] } else { vec![0.0, 1.0] });", 3),
    ],
)
def test_known_lengths(body: str, expected: int) -> None:
    assert length_at(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "g(/*here*/(0..10).filter(|i| i % 2 == 0).collect());",  # may drop items
        "g(/*here*/(0..3).chain(5..7).collect());",  # adds items (not followed)
        "g(/*here*/(0..3).zip(xs.iter()).collect());",  # the shorter of the two
        "g(/*here*/(0..3).flat_map(|i| [i, i]).collect());",
        "g(/*here*/(0..n).map(|i| i).collect());",  # a run-time count
        "g(/*here*/xs.iter().map(|x| x * 2.0).collect());",  # a parameter's list
        "let mut v = vec![0.0; 4];\nif n > 2 { v.push(1.0); }\ng(/*here*/v);",  # changed after
        "let mut v = vec![0.0; 4];\nh(&mut v);\ng(/*here*/v);",  # lent mutably
        "let mut v = Vec::new();\nfor i in 0..4 { v.push(i); }\ng(/*here*/v);",
        "g(/*here*/if flag { vec![1.0; 3] } else { vec![0.0, 1.0] });",  # branches differ
        "g(/*here*/if flag { vec![1.0; 3] } else { other() });",
    ],
)
def test_unknown_lengths(body: str) -> None:
    assert length_at(body) is None


HELPER = """
fn checkerboard(size: usize) -> Vec<f32> {
    (0..size * size).map(|i| ((i / size + i % size) % 2) as f32).collect()
}
fn two_ways(size: usize) -> Vec<f32> {
    if size > 100 { return vec![0.0; 3]; }
    vec![0.0; size]
}
fn rec(size: usize) -> Vec<f32> { if size == 0 { vec![] } else { rec(size - 1) } }
"""


def test_a_crate_function_s_list_at_its_call() -> None:
    assert length_at("g(/*here*/checkerboard(32));", HELPER) == 1024
    assert length_at("g(/*here*/checkerboard(n));", HELPER) is None
    assert length_at("g(/*here*/two_ways(3));", HELPER) == 3  # every exit agrees
    assert length_at("g(/*here*/two_ways(5));", HELPER) is None
    assert length_at("g(/*here*/rec(3));", HELPER) is None  # recursion is not followed


def test_len_of_a_list_whose_items_are_not_known() -> None:
    from evaluate_helpers import value_at

    src = "fn f(n: usize) {\n    let v: Vec<f32> = (0..12).map(|i| i as f32 * 2.0).collect();\n"
    assert value_at(src + "    g(/*here*/v.len());\n}\n") == 12
    assert value_at(src.replace("0..12", "0..n") + "    g(/*here*/v.len());\n}\n") is None

"""evaluate.mutations: a `let mut` list or number after the plain changes before a read, in
the let's own block; any other change (in a loop, a branch, through `&mut`, an unknown index or a
method not read) leaves it unknown."""

from __future__ import annotations

import pytest
from evaluate_helpers import value_at


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("let mut w = vec![1.0; 4];\n    w[2] = 0.0;\n    w.push(0.5);\n    g(/*here*/w)",
         [1.0, 1.0, 0.0, 1.0, 0.5]),
        ("let mut w = Vec::new();\n    w.push(3);\n    w.push(4);\n    let n = w.len();\n"
         "    g(/*here*/w)", [3, 4]),
        ("let mut w = vec![1, 2];\n    let k = w.iter().sum::<usize>();\n    w.push(k);\n"
         "    g(/*here*/w)", [1, 2, 3]),
        ("let mut w = vec![1, 2, 3];\n    w.truncate(1);\n    w.extend_from_slice(&[7, 8]);\n"
         "    w.insert(0, 5);\n    w.reverse();\n    w.pop();\n    g(/*here*/w)", [8, 7, 1]),
        ("let mut w = vec![1, 2];\n    w.push(3);\n    g(/*here*/w.len())", 3),
        ("let mut w = vec![1, 2];\n    w.clear();\n    g(/*here*/w.len())", 0),
        # changes the list's own block does not hold, or not read: unknown
        ("let mut w = vec![1, 2];\n    for i in 0..2 { w.push(i); }\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    if n > 0 { w.push(3); }\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    w[n] = 0;\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    w[5] = 0;\n    g(/*here*/w)", None),  # Rust panics there
        ("let mut w = vec![1, 2];\n    h(&mut w);\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    w.sort();\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    w.push(n);\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    { w.push(3); }\n    g(/*here*/w)", None),
        ("let mut w = vec![1, 2];\n    g({ w.push(3); /*here*/w })", None),
        ("let mut w = vec![1];\n    while n > 0 {\n        g(/*here*/w);\n"
         "        w.push(2);\n    }", None),  # a later turn of the loop sees the push
        # numbers: `op=` and `=` with known values, of the same type
        ("let mut x = 6;\n    x *= 4;\n    g(/*here*/x)", 24),
        ("let mut x = 7;\n    x /= 2;\n    x -= 1;\n    g(/*here*/x)", 2),
        ("let mut x = -7;\n    x /= 2;\n    g(/*here*/x)", -3),
        ("let mut x = 6.0;\n    x /= 4.0;\n    g(/*here*/x)", 1.5),
        ("let mut x = 6;\n    x *= n;\n    g(/*here*/x)", None),
        ("let mut x = 6.0;\n    x *= 2;\n    g(/*here*/x)", None),  # (not Rust: types differ)
        ("let mut x = 6;\n    if n > 1 { x *= 2; }\n    g(/*here*/x)", None),
        ("let mut x = 6;\n    for _ in 0..3 { x *= 2; }\n    g(/*here*/x)", None),
        ("let mut x = 6;\n    x *= 2;\n    x = n;\n    g(/*here*/x)", None),
    ],
)  # fmt: skip
def test_a_list_after_its_changes(body: str, value: object) -> None:
    assert value_at(f"fn f(n: usize) {{\n    {body};\n}}\n") == value

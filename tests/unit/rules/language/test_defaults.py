"""A default of burn's config table that is constant arithmetic is the value Rust computes
(Rust's integer division and remainder, no mixed int and float); anything else is unknown."""

from __future__ import annotations

import pytest

from panic_lens.rules.language.values import default_value, parse_default

UNKNOWN = default_value(None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.0 / 3.0", 1.0 / 3.0),
        ("2 * 64", 128),
        ("-(1 << 4)", -16),
        ("7 / 2", 3),
        ("-7 / 2", -3),
        ("-7 % 3", -1),
        ("(1.0 - 0.5) * 2.0", 1.0),
        ("1e-5 * 2.0", 2e-5),
        ("1_000 * 2", 2000),
        ("3.0f32 / 2.0f32", 1.5),
        ("Some(1.0 / 4.0)", 0.25),
        ("[1.0 / 2.0; 2]", [0.5, 0.5]),
    ],
)
def test_constant_arithmetic_is_computed(text: str, value: object) -> None:
    found = parse_default(text)
    assert found == value and type(found) is type(value)


@pytest.mark.parametrize(
    "text",
    ["1 + 2.0", "4 / 0", "1.0 / 0.0", "3 -", "a + 1", "1.0 / num_traits::Float::sqrt(3.0)",
     "x.len() * 2", "1.max(2)", "(1 + 2", "Vec::<usize>::new()"],
)  # fmt: skip
def test_anything_else_is_unknown(text: str) -> None:
    assert parse_default(text) is UNKNOWN

"""Three-valued conditions: the table of conditions.md's 18 cases, kept as a test so an
upgrade of the CEL package cannot silently change what `unknown` does."""

from __future__ import annotations

import pytest

from panic_lens.rules.language.conditions import (
    ConditionError,
    Failed,
    compile_expr,
    conjuncts,
    evaluate,
    holds,
)

NAMES = ("a", "b", "xs", "config")
KNOWN = {"a": 3, "xs": [1, 2, 3], "config": {"p": 0.5}}  # `b` is unknown: absent


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("b > 1 && a > 1", None),  # unknown && true
        ("b > 1 && a > 5", False),  # unknown && false: false absorbs
        ("a > 5 && b > 1", False),  # commutative
        ("b > 1 || a > 1", True),  # unknown || true: true absorbs
        ("a > 1 || b > 1", True),
        ("b > 1 || a > 5", None),  # unknown || false
        ("!(b > 1)", None),
        ("!(a > 1)", False),
        ("xs.exists(x, x == b) || xs.exists(x, x == 3)", True),
        ("xs.exists(x, x > b)", None),
        ("xs.all(x, x > 0)", True),
        ("xs.all(x, x > b) && a == 4", False),
        ("config.p > 1.0 || config.p < 0.0", False),
        ("config.q > 1.0", None),  # a field not known: the key is absent
        ("a > 2.5", True),  # int and double compare
        ("-3 % 5 == -3", True),  # truncating remainder, as Rust
        ("config.p == null", False),
        ("b == null", None),
    ],
)
def test_three_valued_table(expr: str, expected: bool | None) -> None:
    assert holds(expr, NAMES, KNOWN) == expected


def test_other_errors_fail_instead_of_firing() -> None:
    outcome = holds("a % 0 == 0", NAMES, KNOWN)
    assert isinstance(outcome, Failed) and "modulus by zero" in outcome.reason
    outcome = holds("a + 1", NAMES, KNOWN)
    assert isinstance(outcome, Failed) and "not true or false" in outcome.reason


def test_a_syntax_error_names_the_column() -> None:
    with pytest.raises(ConditionError, match="1:4"):
        compile_expr("a +", NAMES)


def test_the_shape_functions_and_their_unknowns() -> None:
    """`sum`, `product` and `indices` over known lists; a list that is not known makes them
    unknown; items that are not numbers are an error, not a finding."""
    names = ("s", "r")
    data = {"s": [2, 0, 3], "r": [1, 5, 1]}
    assert evaluate("product(s)", names, data) == 0
    assert evaluate("sum(s)", names, data) == 5
    assert evaluate("indices(s)", names, data) == [0, 1, 2]
    assert evaluate("product(indices(s).map(i, s[i] == 0 ? r[i] : s[i]))", names, data) == 30
    assert evaluate("product(s) == 0", names, {}) is None
    assert holds("product(s) == 0 || true", names, {}) is True
    assert isinstance(evaluate("sum(s)", names, {"s": [True]}), Failed)


def test_shape_reads_a_nested_array_or_a_known_tensor() -> None:
    """`shape(x)`: the dims of the data a nested array holds (as `TensorData::from` reads
    it), or a tensor's `dims`; not known when the array or the tensor's shape is not; a
    ragged array, a tensor without its whole shape or non-numbers are errors, no finding."""
    names = ("x",)
    assert evaluate("shape(x)", names, {"x": [[1.0, 2.0], [3.0, 4.0]]}) == [2, 2]
    assert evaluate("shape(x)", names, {"x": [1, 2, 3]}) == [3]
    assert evaluate("shape(x)", names, {"x": []}) == [0]
    assert evaluate("shape(x)", names, {"x": [[], []]}) == [2, 0]
    assert evaluate("shape(x)", names, {"x": {"rank": 2, "dims": [4, 5]}}) == [4, 5]
    assert evaluate("size(shape(x)) != 2", names, {}) is None
    for bad in ([[1.0], [2.0, 3.0]], ["a"], {"rank": 2}):
        assert isinstance(evaluate("shape(x)", names, {"x": bad}), Failed)


@pytest.mark.parametrize(
    ("expr", "parts"),
    [
        ("a > 1 && b < 2", ("a > 1", "b < 2")),
        ("type(s) == list && s.all(d, d >= 0 && d < 9) && size(s) > 1",
         ("type(s) == list", "s.all(d, d >= 0 && d < 9)", "size(s) > 1")),
        ("(a || b) && c", ("(a || b)", "c")),
        ("[a && b, c][0] && d", ("[a && b, c][0]", "d")),
        ('m == "x && y" && n', ('m == "x && y"', "n")),
        ("m == 'a||b' && n", ("m == 'a||b'", "n")),
        ("a || b && c", ("a || b && c",)),  # `||` binds looser: not a conjunction
        ("a && b || c", ("a && b || c",)),
        ("a ? b && c : d", ("a ? b && c : d",)),
        ('m == "q\\" && p" && n', ('m == "q\\" && p" && n',)),  # escapes are not read
        ("a && b // && c", ("a && b // && c",)),
        ("(a && b", ("(a && b",)),  # unbalanced: left whole
        ("a", ("a",)),
    ],
)  # fmt: skip
def test_conjuncts_split_only_at_a_top_level_and(expr: str, parts: tuple[str, ...]) -> None:
    assert conjuncts(expr) == parts


def test_a_conjunct_that_is_not_true_makes_the_condition_not_true() -> None:
    """What `check` relies on to skip a call: over any values, the condition is true only
    when each of its conjuncts is."""
    values = [{}, {"a": 3}, {"b": 0}, {"a": 3, "b": 1}, {"a": 0, "b": 2}, {"a": "x", "b": 1}]
    expr = "a > 1 && b > 0 && a % b == 0"
    for data in values:
        whole = holds(expr, ("a", "b"), data)
        if any(holds(part, ("a", "b"), data) is not True for part in conjuncts(expr)):
            assert whole is not True
        else:
            assert whole is True

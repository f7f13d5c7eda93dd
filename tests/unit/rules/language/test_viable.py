"""viable.may_hold: a condition ruled out from its unknown arguments only when no value of the
other inputs can make it true (checked against CEL itself over sample values)."""

from __future__ import annotations

import itertools

import pytest

from panic_lens.rules.language.conditions import holds
from panic_lens.rules.language.viable import may_hold, reads_fields, with_lets

NAMES = ("a", "b", "receiver", "config", "result", "context")


@pytest.mark.parametrize(
    ("condition", "unknown", "expected"),
    [
        ("a < receiver.rank", {"a"}, False),
        ("a < receiver.rank", {"b"}, True),
        ("a < receiver.rank", set(), True),
        ("a < 3 && receiver.rank > 2", {"a"}, False),
        ("a < 3 || receiver.rank > 2", {"a"}, True),  # the other side may decide
        ("a < 3 || b > 2", {"a", "b"}, False),
        ("a.all(x, x > 0) && receiver.rank > 1", {"a"}, False),
        ("!(a < receiver.rank)", {"a"}, False),
        ("!(a < 3 && receiver.rank > 2)", {"a"}, True),  # false by its other side: true
        ("!(a < 3 || receiver.rank > 2)", {"a"}, False),
        ("a > 0 ? receiver.rank > 2 : false", {"a"}, False),  # an unknown test
        ("receiver.rank > 2 ? a > 0 : true", {"a"}, True),
        ("receiver.rank > 2 ? a > 0 : b > 0", {"a", "b"}, False),
        ("has(a.x) || receiver.rank > 2", {"a"}, True),
        ("size(a) > 0", {"a"}, False),
        ("[a, 1].exists(x, x == 0)", {"a"}, True),  # a macro may absorb the unknown
        ("a.all(x, x > 0)", {"b"}, True),
        ("(a) < receiver.rank", {"a"}, False),
        ("(a < 1) && (receiver.rank > 2)", {"a"}, False),
        ("a != receiver.rank", {"a"}, False),
        ('"a" == receiver.name', {"a"}, True),  # a string is no name (blanked by with_lets)
        ("receiver.a > 2", {"a"}, True),  # a field is no name
    ],
)
def test_may_hold(condition: str, unknown: set[str], expected: bool) -> None:
    assert may_hold(with_lets(condition, ()), frozenset(unknown)) is expected


def test_lets_are_read_through() -> None:
    lets = (("fires", "!(-receiver.rank <= dim && dim < receiver.rank)"), ("again", "fires"))
    unfolded = with_lets("again && b > 0", lets)
    assert not may_hold(unfolded, frozenset({"dim"}))
    assert may_hold(unfolded, frozenset({"c"}))
    # a let read as a field of something else is not the let
    assert with_lets("x.fires", lets) == "x.fires"


def test_reads_fields() -> None:
    assert reads_fields("other.dims[0] != 3", "other")
    assert reads_fields("size(shape(data)) != 2", "data")
    assert not reads_fields("dim < receiver.rank", "dim")
    assert not reads_fields("x.other > 1", "other")
    assert reads_fields("s.all(d, d > 0)", "s")


SAMPLES = {"a": [0, 1, 5], "b": [0, 2], "receiver": [{"rank": 1}, {"rank": 3}, {"rank": 4}]}
CONDITIONS = [
    "a < receiver.rank",
    "a < 3 && receiver.rank > 2",
    "a < 3 || receiver.rank > 2",
    "!(a < 3 && receiver.rank > 2)",
    "!(a < 3 || receiver.rank > 2)",
    "a > 0 ? receiver.rank > 2 : b == 0",
    "receiver.rank > 2 ? a > 0 : b == 0",
    "!(-receiver.rank <= a && a < receiver.rank) || b > 1",
    "(a + b) * 2 >= receiver.rank && !(b == 0)",
    "[a].all(x, x > b) && receiver.rank > 2",
    "[0, 1].exists(i, i == a || receiver.rank > 3)",
]


@pytest.mark.parametrize("condition", CONDITIONS)
def test_never_rules_out_a_condition_that_holds(condition: str) -> None:
    """Whenever `may_hold` says no for a set of unknown names, CEL agrees: with those names
    absent, no sample value of the others makes the condition true."""
    names = ("a", "b")
    for size in range(len(names) + 1):
        for unknown in itertools.combinations(names, size):
            if may_hold(with_lets(condition, ()), frozenset(unknown)):
                continue
            known = [n for n in (*names, "receiver") if n not in unknown]
            for values in itertools.product(*(SAMPLES[n] for n in known)):
                data = dict(zip(known, values, strict=True))
                assert holds(condition, NAMES, data) is not True, (condition, unknown, data)


def test_a_macro_over_an_unknown_range_is_unknown() -> None:
    assert not may_hold("a.all(d, d > receiver.rank)", frozenset({"a"}))
    assert not may_hold("indices(a).exists(i, a[i] > 0)", frozenset({"a"}))
    assert may_hold("a.all(d, d > b)", frozenset({"b"}))  # the body may never run
    assert may_hold("[a, 1].exists(x, x == 1)", frozenset({"a"}))  # the range is a list


def test_lengths_answer_size_only() -> None:
    from panic_lens.rules.language.conditions import with_lengths

    condition = with_lets("type(s) == list && s.all(d, type(d) == int) && size(s) > 2", ())
    assert not may_hold(with_lengths(condition, {"s": 3}), frozenset({"s"}))
    assert may_hold(with_lengths("size(s) > receiver.rank", {"s": 3}), frozenset({"s"}))

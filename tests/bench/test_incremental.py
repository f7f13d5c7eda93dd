"""Incremental re-parses give exactly the cold result: the same tree and the same analysis."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bench import corpus
from panic_lens.engine import analyze, build_facts
from panic_lens.rules import async_policy_fixes
from panic_lens.rust import edits as ed
from panic_lens.rust.incremental import changed_range, edit_of, point, reparse
from panic_lens.rust.syntax import has_error, parse_code

REPO = Path(__file__).resolve().parents[2]
SNIPPETS = ("// note", "let y = 1;", "}", "{", "(", "InterpolateMode::Bilinear", "é", "🦀", "\n",
            "AsyncPolicy::new(4, p)", "ctc_loss(a, b, c, d, 0)", "5000", "", "!", "println",
            "assert!(", "println!(\"{}\", ctc_loss(a, b, c, d, 0));", "n!(")  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (b"abc", b"abc", (3, 3, 3)),
        (b"abc", b"abXc", (2, 2, 3)),
        (b"abc", b"ac", (1, 2, 1)),
        (b"aaaa", b"aaaaa", (4, 4, 5)),  # repeated bytes: the range never overlaps itself
        (b"", b"fn f() {}", (0, 0, 9)),
        ("é".encode(), "è".encode(), (1, 2, 2)),
    ],
)
def test_changed_range(old: bytes, new: bytes, expected: tuple[int, int, int]) -> None:
    start, old_end, new_end = changed_range(old, new)
    assert (start, old_end, new_end) == expected
    assert old[:start] + new[start:new_end] + old[old_end:] == new


def test_changed_range_is_the_longest_common_prefix_then_suffix() -> None:
    """Against a byte-by-byte reference, on texts shorter and longer than the 4 KB chunks the
    search compares first, edits at and across chunk ends included."""
    rng = random.Random(11)
    for _ in range(3000):
        n = rng.choice((0, 1, 5, 4095, 4096, 4097, 9000))
        old = bytes(rng.choice(b"ab\n") for _ in range(n))
        i = rng.choice((rng.randint(0, n), min(n, 4096), max(0, n - 4096)))
        j = rng.randint(i, n)
        new = (
            old[:i]
            + bytes(rng.choice(b"ab\n") for _ in range(rng.choice((0, 1, 3, 5000))))
            + old[j:]
        )
        prefix = 0
        while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
            prefix += 1
        suffix, limit = 0, min(len(old), len(new)) - prefix
        while suffix < limit and old[-1 - suffix] == new[-1 - suffix]:
            suffix += 1
        assert changed_range(old, new) == (prefix, len(old) - suffix, len(new) - suffix)


def random_edit(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    cut = rng.choice((0, 0, 1, 3, 12))
    return text[:at] + rng.choice(SNIPPETS) + text[at + cut :]


def test_random_edit_sequences_reparse_to_the_cold_tree_and_analysis(
    make_crate: Callable[..., Path],
) -> None:
    crate = make_crate("app", {"src/lib.rs": ""})
    path = crate / "src" / "big.rs"
    rng = random.Random(5)
    text = corpus.big_file(600, seed=3)
    src = text.encode()
    tree = parse_code(src)
    for step in range(80):
        text = random_edit(text, rng)
        new = text.encode()
        tree = reparse(src, tree, new)
        cold = parse_code(new)
        assert str(tree.root_node) == str(cold.root_node), step
        assert analyze(new, path, tree=tree) == analyze(new, path), step
        src = new


def naive_point(src: bytes, offset: int) -> tuple[int, int]:
    return src.count(b"\n", 0, offset), offset - (src.rfind(b"\n", 0, offset) + 1)


def test_edit_points_counted_from_the_last_edit_are_the_counts_from_the_top() -> None:
    """`point` counts lines from where the previous edit of the same text ended (typing moves
    a few bytes at a time); before or after it, the points are those counted from byte 0."""
    rng = random.Random(11)
    text = corpus.big_file(300, seed=4)
    src = text.encode()
    for step in range(200):
        text = random_edit(text, rng) if step % 3 else text[:-1] + "\n"
        new = text.encode()
        start, old_end, new_end, *points = edit_of(src, new)
        assert (start, old_end, new_end) == changed_range(src, new), step
        assert points == [naive_point(src, start), naive_point(src, old_end),
                          naive_point(new, new_end)], step  # fmt: skip
        for offset in (0, start // 2, new_end, (new_end + len(new)) // 2, len(new)):
            assert point(new, offset) == naive_point(new, offset), (step, offset)
        src = new


def test_fix_checks_agree_with_full_parses() -> None:
    checked = 0
    for file in sorted((REPO / "tests" / "golden").glob("async-policy-*/src/*.rs")):
        facts = build_facts(file.read_bytes(), str(file))
        for site in facts.calls():
            receiver = site.receiver
            if site.name != "load_record":
                continue
            for fix in async_policy_fixes.fixes_for(site, receiver, facts):
                new, tree = ed.reparse_edited(facts.tree, facts.src, fix.edits)
                cold = parse_code(ed.apply_edits(facts.src, fix.edits))
                assert new == ed.apply_edits(facts.src, fix.edits)
                assert str(tree.root_node) == str(cold.root_node)
                assert has_error(tree) == has_error(cold)
                checked += 1
    assert checked > 0


def assert_reparses_to_cold_trees(base: str, steps: list[str]) -> None:
    """Each text of `steps`, re-parsed from the tree of the one before, is its cold tree."""
    src = base.encode()
    tree = parse_code(src)
    for step, text in enumerate(steps):
        new = text.encode()
        tree = reparse(src, tree, new)
        assert str(tree.root_node) == str(parse_code(new).root_node), step
        src = new


def test_a_macro_name_edited_before_its_bang_reparses_to_the_cold_tree() -> None:
    """`code_view` reads the `!` of `println!(` as a space: typing or deleting a letter of the
    name changes how a `!` outside the edit is read, and the re-parse must see it."""
    base = 'fn f(x: T) {\n    printl!("{}", x.permute([0, 0]));\n}\n'
    steps = [base.replace("printl!", "println!"), base, base.replace("printl!", "prin!"),
             base.replace("printl!", "assert!"), base.replace("printl!", "assert_eq!")]  # fmt: skip
    assert_reparses_to_cold_trees(base, steps)
    assert "call_expression" in str(parse_code(steps[0].encode()).root_node)


def test_a_vec_name_edited_before_its_bang_reparses_to_the_cold_tree() -> None:
    """`vec![` is read as `    [`: typing the name's last letter, or a `:` before it, changes
    how bytes outside the edit are read."""
    base = "fn f(x: T) {\n    let v = ve![x.permute([0, 0])];\n}\n"
    steps = [base.replace("ve!", "vec!"), base.replace("ve!", "std::vec!"),
             base.replace("ve!", "vec!"), base.replace("ve!", "myvec!"), base]  # fmt: skip
    assert_reparses_to_cold_trees(base, steps)
    assert "array_expression" in str(parse_code(steps[0].encode()).root_node)

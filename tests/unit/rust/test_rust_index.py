"""The file index without whole-tree walks (byte searches, parents, byte-range queries) finds
exactly what a walk over every node finds: checked against `walk` on every golden and example
file and on generated text with the words in strings, comments and longer identifiers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panic_lens.rust import facts as facts_module
from panic_lens.rust.facts import FileFacts, LostNode
from panic_lens.rust.names import Imports
from panic_lens.rust.search import Descents, TooDeep, calls_named, comments_mentioning, declarations
from panic_lens.rust.syntax import (
    Node,
    ancestors,
    call_name,
    calls_in,
    index,
    index_in,
    node_text,
    parse,
    walk,
)

REPO = Path(__file__).resolve().parents[3]
FILES = sorted(
    [*(REPO / "tests" / "golden").glob("*/src/**/*.rs"), *(REPO / "examples").glob("*/src/*.rs")]
)
ITEMS = {"function_item", "struct_item", "enum_item", "union_item", "trait_item", "type_item",
         "mod_item", "const_item", "static_item", "function_signature_item"}  # fmt: skip
USES = {"use_declaration", "extern_crate_declaration"}
COMMENTS = {"line_comment", "block_comment"}


WALKED = pytest.mark.parametrize("walked", [False, True], ids=["searched", "walked"])


@contextmanager
def lookups(walked: bool) -> Iterator[None]:
    """With `walked`, every byte-search lookup is over its budget at the first descent and
    answers by walking the tree instead, as on a pathologically deep tree."""
    if not walked:
        yield
        return

    def over_budget(self: Descents) -> None:
        raise TooDeep

    with mock.patch.object(Descents, "tick", over_budget):
        yield


def by_walk(src: bytes) -> dict[str, list[tuple[int, int, str]]]:
    """The reference: every node of the tree visited in Python."""
    out: dict[str, list[tuple[int, int, str]]] = {k: [] for k in ("call", "use", "item", "impl")}
    for node in walk(parse(src).root_node):
        kind = {"call_expression": "call", "impl_item": "impl"}.get(node.type)
        kind = "item" if node.type in ITEMS else "use" if node.type in USES else kind
        if kind is not None:
            out[kind].append((node.start_byte, node.end_byte, node.type))
    return {k: sorted(v) for k, v in out.items()}


def spans(nodes: list[Node]) -> list[tuple[int, int, str]]:
    """In source order; nodes that start at the same byte (nested calls) in any order."""
    found = [(n.start_byte, n.end_byte, n.type) for n in nodes]
    assert [s[0] for s in found] == sorted(s[0] for s in found)
    return sorted(found)


WORDS = ("backward", "require_grad", "Autodiff", "Learner", "TrainStep", "panic-lens", "fn",
         "use", "impl", "mod", "const", "static", "type")  # fmt: skip
PIECES = (
    "fn a() {{ {w}(); }}\n", "struct {w}Thing;\n", "const X: &str = \"{w}\";\n",
    "// {w} here\n", "/* {w} */\n", "/// doc {w}\n", "impl S {{ fn m(&self) {{ self.{w}(); }} }}\n",
    "mod m {{ use a::{w}; fn g() {{ let {w}_x = 1; }} }}\n", "fn h() {{ use b::c as {w}2; }}\n",
    "fn k() {{ x.{w}.y(); let _ = B::<{w}>::new(); }}\n", "macro_rules! z {{ () => {{ {w} }} }}\n",
    "fn broken( {{ {w}\n", "impl<B: Backend> T for {w} {{}}\n",
    "pub(crate) const fn {w}_c() -> impl Fn(u8) {{ |x| x }}\n", "static S: &'static str = \"\";\n",
    "extern crate {w}_k as k;\nextern \"C\" {{ fn {w}_e(); }}\n",
    "trait T {{ type A; const B: u8; }}\n",
    "union U {{ a: u8 }}\nenum E {{ A }}\ntype P = *const u8;\n", "r#type(); let r#fn = 1;\n",
    "mod {w}_m;\npub mod m2 {{ }}\n", "#[cfg(x)] use a::{{b, c as d}};\n", "use\n",
)  # fmt: skip
texts = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(WORDS)), max_size=8).map(
    lambda parts: "".join(p.format(w=w) for p, w in parts).encode()
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_index_equals_a_walk_on_every_fixture(path: Path) -> None:
    src = path.read_bytes()
    assert {k: spans(v) for k, v in index(parse(src)).items()} == by_walk(src)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_the_index_equals_a_walk_on_generated_text(src: bytes) -> None:
    assert {k: spans(v) for k, v in index(parse(src)).items()} == by_walk(src)


def without_calls(walked: dict[str, list[tuple[int, int, str]]]) -> dict[str, object]:
    return {k: v for k, v in walked.items() if k != "call"}


@WALKED
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_declarations_by_keyword_equal_a_walk_on_every_fixture(path: Path, walked: bool) -> None:
    src = path.read_bytes()
    with lookups(walked):
        found = declarations(parse(src), src)
    assert {k: spans(v) for k, v in found.items()} == without_calls(by_walk(src))


@WALKED
@settings(max_examples=300, deadline=None)
@given(texts)
def test_declarations_by_keyword_equal_a_walk_on_generated_text(walked: bool, src: bytes) -> None:
    with lookups(walked):
        found = declarations(parse(src), src)
    assert {k: spans(v) for k, v in found.items()} == without_calls(by_walk(src))


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(0, 400), st.integers(0, 400))
def test_range_queries_give_the_walk_restricted_to_the_range(src: bytes, a: int, b: int) -> None:
    lo, hi = sorted((min(a, len(src)), min(b, len(src))))
    tree = parse(src)
    want = by_walk(src)
    inside = [s for s in want["call"] if lo <= s[0] and s[1] <= hi]
    assert spans(calls_in(tree, lo, hi)) == inside
    found = index_in(tree, lo, hi)
    assert spans(found["call"]) == inside
    for kind in ("use", "item", "impl"):  # those overlapping the range
        nodes = found[kind]
        assert [s for s in spans(nodes) if lo <= s[0] < hi] == [
            s for s in want[kind] if lo <= s[0] < hi
        ]


@WALKED
@settings(max_examples=150, deadline=None)
@given(texts)
def test_comments_found_by_byte_search_are_all_comments_mentioning_the_word(
    walked: bool, src: bytes
) -> None:
    tree = parse(src)
    want = [(n.start_byte, n.end_byte, n.type) for n in walk(tree.root_node)
            if n.type in COMMENTS and b"panic-lens" in src[n.start_byte : n.end_byte]]  # fmt: skip
    with lookups(walked):
        found = comments_mentioning(tree, src, b"panic-lens")
    assert spans(found) == sorted(want)


def signal_reference(src: bytes) -> list[tuple[int, int, str]]:
    """Every identifier of the tree spelled like a training signal, by walking every node."""
    tree = parse(src)
    methods, names = facts_module._TRAINING_METHODS, facts_module._TRAINING_NAMES
    out = []
    for n in walk(tree.root_node):
        text = node_text(n, src)
        if (n.type == "field_identifier" and text in methods) or (
            n.type in ("type_identifier", "identifier") and text in names
        ):
            out.append((n.start_byte, n.end_byte, n.type))
    return out


@WALKED
@settings(max_examples=150, deadline=None)
@given(texts)
def test_training_signal_candidates_equal_a_walk(walked: bool, src: bytes) -> None:
    with lookups(walked):
        found = facts_module._signal_candidates(parse(src), src)
    assert spans(found) == signal_reference(src)


@WALKED
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_signal_candidates_on_every_fixture(path: Path, walked: bool) -> None:
    src = path.read_bytes()
    with lookups(walked):
        found = facts_module._signal_candidates(parse(src), src)
    assert spans(found) == signal_reference(src)


def test_scopes_come_from_each_declarations_parent() -> None:
    src = b"""
use burn::tensor::Tensor;
mod inner { use burn::nn::Linear; pub fn f() {} }
impl S { fn g() { use burn::module::Module; struct Local; } }
fn broken( { use x::y;
"""
    imports = Imports.from_tree(parse(src), src)
    got = {s.node.type: (s.uses, sorted(s.items), s.is_module) for s in imports._scopes.values()}
    assert got == {
        "source_file": ({"Tensor": ("burn", "tensor", "Tensor")}, ["inner"], True),
        "declaration_list": ({"Linear": ("burn", "nn", "Linear")}, ["f"], True),
        "block": ({"Module": ("burn", "module", "Module")}, ["Local"], False),
    }  # the impl body declares no names; the broken fn's `use` is under an ERROR node


def test_relocated_facts_equal_facts_built_from_scratch() -> None:
    old_src = (
        b"use burn::tensor::Tensor;\nfn a() { let x = 1; }\nstruct After;\nmod m { fn b() {} }\n"
    )
    new_src = old_src.replace(b"let x = 1;", b"let xyz = 12;")
    old = FileFacts.build(old_src)
    new_tree = parse(new_src)
    delta = len(new_src) - len(old_src)
    at = old_src.index(b"let")

    def move_spans(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        return [(s + (delta if s > at else 0), e + (delta if e > at else 0), t)
                for s, e, t in found]  # fmt: skip

    moved = old.relocated(new_src, new_tree, move_spans, old.training_signals())
    fresh = FileFacts.build(new_src, tree=new_tree)
    for kind in ("use", "item", "impl"):
        assert spans(moved.nodes(kind)) == spans(fresh.nodes(kind))
        assert not moved.lost

    def names(facts: FileFacts) -> dict[tuple[int, int], list[tuple[str, int]]]:
        scopes = facts.imports._scopes.values()
        return {(s.node.start_byte, s.node.end_byte): sorted(
            (name, item.start_byte) for name, item in s.items.items()) for s in scopes}  # fmt: skip

    assert names(moved) == names(fresh)
    assert moved.resolve("Tensor") == fresh.resolve("Tensor") == "burn::tensor::Tensor"
    # relocated again before any was read: the ranges move on, the nodes are found then
    unread = old.relocated(new_src, new_tree, move_spans, old.training_signals())
    again = unread.relocated(new_src, new_tree, lambda found: found, ())
    after = new_src.index(b"struct")
    assert again.starts_in("item", at, after) is False
    assert again.starts_in("item", at, after + 1) is True
    for kind in ("use", "item", "impl"):
        assert spans(again.nodes(kind)) == spans(fresh.nodes(kind))
    assert not again.lost
    # the names' scopes too: moved twice by range, found in the tree only when read
    assert again.imports._unsettled is not None
    assert names(again) == names(fresh) and not again.imports.lost


def test_nodes_in_a_range_look_up_only_those() -> None:
    """After an edit, the impls of one byte range are found without looking up the others
    (a keystroke's re-analysis reads the edited function's only); the same as read whole."""
    src = b"impl A for B {}\nfn f() { let x = 1; }\nimpl C for D {}\nimpl E for F {}\n"
    facts = FileFacts.build(src)
    pending = facts.relocated(src, facts.tree, lambda found: found, ())
    second = src.index(b"impl C")
    inside = pending.nodes_in("impl", second, len(src))
    assert "impl" in pending._pending  # still pending: nothing was read whole
    assert spans(inside) == spans(facts.nodes("impl"))[1:]
    assert pending.nodes_in("impl", src.index(b"fn"), second) == []
    assert spans(pending.nodes("impl")) == spans(facts.nodes("impl"))
    assert spans(pending.nodes_in("impl", 0, second)) == spans(facts.nodes("impl"))[:1]
    whole = facts.relocated(src, facts.tree, lambda found: found, ())
    assert spans(whole.nodes_in("impl", 0, len(src))) == spans(facts.nodes("impl"))
    assert "impl" not in whole._pending  # every impl read: found once and kept


def test_a_declaration_the_new_tree_lacks_marks_the_facts_lost() -> None:
    """A pending node whose range and type are not in the tree: reading it raises, and the
    facts say they must not be used (the re-analysis then analyses the whole file)."""
    src = b"fn a() {}\nstruct B;\n"
    facts = FileFacts.build(src)
    wrong = facts.relocated(src, facts.tree, lambda found: [(s + 1, e, t) for s, e, t in found], ())
    assert wrong.starts_in("item", 1, 2) is True  # answered from the ranges, no lookup
    with pytest.raises(LostNode):
        wrong.nodes("item")
    assert wrong.lost


def scope_table(imports: Imports) -> dict[tuple[int, int], tuple[object, ...]]:
    return {
        (s.node.start_byte, s.node.end_byte): (
            s.node.type, s.is_module, s.uses, s.globs,
            sorted((name, item.start_byte) for name, item in s.items.items()),
        )
        for s in imports._scopes.values()
    }  # fmt: skip


MODULE_TEXT = b"""
use burn::tensor::Tensor;
pub use burn::nn::Linear as Lin;
mod a { pub use burn::module::*; pub mod b { pub fn f() {} struct S; } }
fn g() { use burn::x::Y; mod hidden { pub fn h() {} } }
impl T { fn m() {} }
"""


@pytest.mark.parametrize("src", [MODULE_TEXT, *(p.read_bytes() for p in FILES)])
def test_a_module_files_names_are_its_module_scopes_of_a_full_read(src: bytes) -> None:
    """What other files can see: the file's and its `mod` bodies' names, read without a walk
    into function bodies, equal those scopes of the full read."""
    tree = parse(src)
    full = scope_table(Imports.from_tree(tree, src))
    module = scope_table(Imports.module_level(tree, src))
    assert module == {k: v for k, v in full.items() if k in module}
    for key, (kind, *_rest) in full.items():
        if key not in module:  # a block, or a `mod` inside one: not nameable from elsewhere
            node = tree.root_node.descendant_for_byte_range(*key)
            assert kind == "block" or any(a.type == "block" for a in ancestors(node))


@pytest.mark.parametrize("src", [MODULE_TEXT, *(p.read_bytes() for p in FILES)])
def test_scopes_are_the_same_when_the_declarations_parents_are_walked(src: bytes) -> None:
    tree = parse(src)
    asked = scope_table(Imports.from_tree(tree, src))
    with lookups(walked=True):
        walked = scope_table(Imports.from_tree(tree, src))
    assert walked == asked


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_an_analysis_is_the_same_when_every_lookup_walks_the_tree(path: Path) -> None:
    from panic_lens import engine

    src = path.read_bytes()
    searched = engine.analyze(src, str(path))
    with lookups(walked=True):
        walked = engine.analyze(src, str(path))
    assert walked == searched


CALL_SHAPES = (
    "fn a() {{ {w}(1); }}\n", "fn b() {{ x.{w}(1).{w}(2); }}\n", "fn c() {{ m::{w}::<T>(x); }}\n",
    "fn d() {{ y.{w}::<u8>(); }}\n", "fn e() {{ {w}(1)(2); T::{w}({w}(3)); }}\n",
    "fn f() {{ let {w} = 1; s.{w}; \"{w}(\"; }}\n", "// {w}(x)\n",
    "fn g() {{ {w}_x(); x{w}(); }}\n",
    "fn h() {{ <A as B>::{w}(a); }}\n", "fn broken( {{ {w}(\n", "fn i() {{ v![{w}(1)]; }}\n",
)  # fmt: skip
NAMES = ("new", "forward", "ctc_loss", "ctc", "x")
call_texts = st.lists(
    st.tuples(st.sampled_from(CALL_SHAPES), st.sampled_from(NAMES)), max_size=8
).map(lambda parts: "".join(p.format(w=w) for p, w in parts).encode())


def named_reference(src: bytes, names: set[str], lo: int, hi: int) -> list[tuple[int, int, str]]:
    """Every call of the walk whose callee name is one of `names`, inside [lo, hi)."""
    tree = parse(src)
    out = []
    for n in walk(tree.root_node):
        name = call_name(n) if n.type == "call_expression" else None
        inside = lo <= n.start_byte and n.end_byte <= hi
        if name is not None and inside and node_text(name, src) in names:
            out.append((n.start_byte, n.end_byte, n.type))
    return sorted(out)


@WALKED
@settings(max_examples=200, deadline=None)
@given(call_texts, st.sets(st.sampled_from(NAMES)), st.integers(0, 400), st.integers(0, 400))
def test_calls_found_by_name_equal_a_walk(
    walked: bool, src: bytes, names: set[str], a: int, b: int
) -> None:
    lo, hi = sorted((min(a, len(src)), min(b, len(src))))
    with lookups(walked):
        found = calls_named(parse(src), src, names, lo, hi)
    assert spans(found) == named_reference(src, names, lo, hi)
    outer_first = [(n.start_byte, -n.end_byte) for n in found]
    assert outer_first == sorted(outer_first)  # the order `calls_in` gives


@WALKED
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_calls_found_by_name_on_every_fixture(path: Path, walked: bool) -> None:
    src = path.read_bytes()
    names = {"new", "forward", "ctc_loss", "interpolate", "load_record", "with_mode", "to_device"}
    tree = parse(src)
    want = [n for n in calls_in(tree, 0, len(src))
            if (name := call_name(n)) is not None and node_text(name, src) in names]  # fmt: skip
    with lookups(walked):
        found = calls_named(tree, src, names)
    assert spans(found) == spans(want)

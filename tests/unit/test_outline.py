"""The outline parse (rust/outline.py): the lexer finds exactly tree-sitter's function bodies,
an outline tree equals the full tree outside the skipped bodies, and anything unsure falls
back to a full parse."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import corpus
from panic_lens.engine import analyze, iter_rust_paths
from panic_lens.prefilter import Prefilter
from panic_lens.rust import outline
from panic_lens.rust.facts import FileFacts, Outline
from panic_lens.rust.run import RunMemo
from panic_lens.rust.syntax import Node, Tree, parse

REPO = Path(__file__).resolve().parents[2]
BURN = Path(os.environ.get("BURN_CHECKOUT", REPO.parent / "burn-checkout"))


def tree_bodies(tree: Tree) -> list[tuple[int, int]]:
    """(`{`, `}`) offsets of the bodies of functions not inside another function."""
    out = []
    stack: list[tuple[Node, bool]] = [(tree.root_node, False)]
    while stack:
        node, inside = stack.pop()
        if node.type == "function_item" and not inside:
            body = node.child_by_field_name("body")
            if body is not None:
                out.append((body.start_byte, body.end_byte - 1))
            inside = True
        stack.extend((child, inside) for child in node.children)
    return sorted(out)


def lexed(src: bytes) -> list[tuple[int, int]] | None:
    bodies = outline.function_bodies(src)
    return None if bodies is None else [(a, b) for a, b, _ in bodies]


TRICKY = {
    "raw strings": b'fn a() { let s = r#"}" { "#; }\nfn b() { let t = br##"a"#}"##; }\n',
    "nested comments": b"/* fn x() { /* } */ } */\nfn a() { /* { */ }\n// fn y() {\n",
    "char literals": b"fn a() { let c = '{'; let d = '\\''; let e = b'}'; let u = '\\u{7D}'; }",
    "lifetimes": b"fn a<'a>(x: &'a str) -> &'static str { 'outer: loop { break 'outer; } }\n",
    "strings": b'fn a() { let s = "}\\" // {"; let c = c"}"; let b = b"{"; }\nfn b() {}\n',
    "fn pointers": b"struct S { f: fn(u8) -> u8 }\nfn a(f: fn(u8) -> u8) -> u8 { f(1) }\n",
    "never type": b'fn fail() -> ! {\n    panic!("x")\n}\nfn b() {}\n',
    "macro in return type": b"fn a(v: u32) -> ty!(u32) {\n    v\n}\n",
    "item macros": b"bench! { fn inner() { x } }\nfoo!(fn g() {});\nfn a() {}\n",
    "spaced item macro": b"thread_local! { static X: u8 = 1; }\nfn a() {}\n",
    "macro_rules": b"macro_rules! m {\n    ($x:ident) => { fn $x() {} };\n}\nfn a() {}\n",
    "trait declarations": (
        b"trait T {\n    fn f(&self);\n    const X: u8 = { 1 };\n    fn g(&self) -> u8 { 2 }\n}\n"
    ),
    "extern block": b'extern "C" {\n    fn f();\n}\nunsafe extern "C" fn g() {}\n',
    "signatures": (
        b"fn a<const N: usize>(x: impl Fn() -> u8) -> impl Iterator<Item = u8> + use<'_>\n"
        b"where\n    u8: Copy,\n{\n    std::iter::once(x())\n}\n"
    ),
    "impls and modules": (
        b"mod m {\n    impl S {\n        pub fn new() -> Self { S }\n    }\n}\n"
        b"impl Drop for S { fn drop(&mut self) { let _ = 1; } }\n"
    ),
    "nested functions": b"fn outer() { fn inner() { } let c = || { 1 }; }\n",
    "raw identifiers": b"fn r#fn() { let r#type = 1; }\nfn b() {}\n",
    "attributes": b'#![allow(x)]\n#[cfg(feature = "}")]\nfn a() {}\n#[doc = "{"]\nfn b() {}\n',
    "select macro in a body": b"async fn a() {\n    tokio::select! {\n _ = x => {},\n }\n}",
}


@pytest.mark.parametrize("src", TRICKY.values(), ids=TRICKY.keys())
def test_the_lexer_finds_the_bodies_tree_sitter_finds(src: bytes) -> None:
    tree = parse(src)
    assert not tree.root_node.has_error
    assert lexed(src) == tree_bodies(tree)


@pytest.mark.parametrize(
    "src",
    [
        b'fn a() { let s = "open; }\n',
        b"fn a() { /* open }\n",
        b'fn a() { let s = r#"open"; }\n',
        b"fn a() { if x { }\n",
        b"fn a() { } }\n",
        b"foo! { fn a() {}\n",
    ],
    ids=["string", "block comment", "raw string", "missing brace", "extra brace", "macro"],
)
def test_an_unterminated_literal_or_unbalanced_braces_give_none(src: bytes) -> None:
    assert outline.function_bodies(src) is None


def test_a_body_that_declares_an_item_is_marked() -> None:
    src = (
        b"fn uses() { use std::fmt; }\n"
        b"fn consts() { const N: usize = 4096; }\n"
        b"fn impls() { impl S { fn f() {} } }\n"
        b"fn statics() { static X: u8 = 1; }\n"
        b"fn macros() { macro_rules! m { () => {} } }\n"
        b'fn lifetime() { let s: &\'static str = ""; }\n'
        b'fn words() { // use the const fn here\n let s = "impl struct"; let construct = 1; }\n'
    )
    bodies = outline.function_bodies(src)
    assert bodies is not None
    assert [declares for _, _, declares in bodies] == [True] * 5 + [False] * 2


def test_skippable_bodies_mention_no_word_and_no_whole_name() -> None:
    src = (
        b"fn a() { ctc_loss(x) }\n"  # a word
        b"fn b() { my_ctc_loss_helper(x) }\n"  # the word inside a longer one still counts
        b"fn c() { ctc(x) }\n"  # a whole name
        b"fn d() { ctc_2(x) }\n"  # a name inside a longer word does not
        b"fn e() { use x::y; }\n"  # declares
        b"fn f() { plain(x) }\n"
    )
    bodies = outline.function_bodies(src)
    assert bodies is not None
    skipped = outline.skippable(src, bodies, [b"ctc_loss"], [b"ctc"])
    assert [src[a - 8 : a].split(b"fn ")[-1] for a, _ in skipped] == [b"d() ", b"f() "]


def nodes_outside(tree: Tree, skipped: list[tuple[int, int]]) -> list[tuple[object, ...]]:
    """Every node's kind, bytes and points, but those inside a skipped body's braces."""
    out = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if any(a < node.start_byte and node.end_byte <= b for a, b in skipped):
            continue
        out.append((node.type, node.start_byte, node.end_byte, node.start_point, node.end_point))
        stack.extend(node.children)
    return sorted(out, key=lambda n: (n[1], -n[2], str(n[0])))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outline-corpus")
    corpus.generate(root, 60, seed=5, hit_ratio=0.5)
    return root


def rust_sources(*roots: Path) -> list[tuple[str, bytes]]:
    return [(p, Path(p).read_bytes()) for p in iter_rust_paths([str(r) for r in roots])]


def test_an_outline_tree_is_the_full_tree_outside_the_skipped_bodies(generated: Path) -> None:
    compared = 0
    for path, src in rust_sources(generated, REPO / "examples", REPO / "tests" / "golden"):
        bodies = outline.function_bodies(src)
        assert bodies is not None, path
        skipped = outline.skippable(src, bodies, [b"ctc_loss", b"load_record"], [])
        if not skipped:
            continue
        tree = outline.parse_outline(src, skipped)
        assert tree is not None, path
        assert nodes_outside(tree, skipped) == nodes_outside(parse(src), skipped), path
        compared += 1
    assert compared > 40


def test_a_skipped_range_that_is_no_function_body_gives_none() -> None:
    src = b"struct S { a: u8 }\nfn f() { let x = 1; }\n"
    struct = (src.index(b"{"), src.index(b"}"))
    assert outline.parse_outline(src, [struct]) is None
    body = (src.index(b"{", struct[1]), src.rindex(b"}"))
    assert outline.parse_outline(src, [body]) is not None


def test_a_syntax_error_outside_the_skipped_bodies_gives_none() -> None:
    src = b"fn f() { let x = 1; }\nfn g() { let = ; }\n"
    bodies = outline.function_bodies(src)
    assert bodies is not None
    assert outline.parse_outline(src, [(a, b) for a, b, _ in bodies[:1]]) is None


def test_outline_analyses_give_the_full_findings_and_notes(generated: Path) -> None:
    """What `check` does per file, against the full analysis, on every file the prefilter
    keeps; most skip bodies."""
    prefilter = Prefilter({})
    kept = outlined = 0
    for path, src in rust_sources(generated, REPO / "examples", REPO / "tests" / "golden"):
        if not prefilter.keeps(path, src):
            continue
        kept += 1
        words = prefilter.outline(path, src)
        assert words is not None
        facts = FileFacts.build(src, path, run=RunMemo(), outline=words)
        outlined += facts.tree.root_node.descendant_count < parse(src).root_node.descendant_count
        full = analyze(src, path)
        fast = analyze(src, path, run=RunMemo(), outline=words)
        assert (fast.findings, fast.notes) == (full.findings, full.notes), path
    assert kept > 40 and outlined > kept // 2


def test_an_empty_outline_still_keeps_the_whole_file_words() -> None:
    """With no rule group satisfied, the training words and suppression comments still keep
    their bodies."""
    src = (
        b"fn a() { x.backward(); }\n"
        b"fn b() { // panic-lens: allow(ctc-target-capacity) fine\n}\n"
        b"fn c() { y() }\n"
    )
    facts = FileFacts.build(src, None, run=RunMemo(), outline=Outline(frozenset()))
    bodies = outline.function_bodies(src)
    assert bodies is not None
    blocks = [facts.tree.root_node.descendant_for_byte_range(a, b + 1) for a, b, _ in bodies]
    assert [block.named_child_count > 0 for block in blocks] == [True, True, False]


@pytest.mark.skipif(not BURN.is_dir(), reason="no burn checkout next to the repository")
def test_the_lexer_finds_tree_sitters_bodies_in_burn() -> None:
    checked = 0
    for path, src in rust_sources(BURN):
        tree = parse(src)
        if tree.root_node.has_error:
            continue  # the lexer may read a broken file otherwise; the outline is not used
        assert lexed(src) == tree_bodies(tree), path
        checked += 1
    assert checked > 1000


# --- property: outline analyses equal full ones on files mixing rule calls and tricky bodies -

MANIFEST = """[package]
name = "app"
version = "0.1.0"

[dependencies]
burn = { version = "0.22.0", features = ["wgpu", "train", "rl"] }
"""
# Every rule's API under another name, from a module file other than the caller's.
ALIASES = """pub use burn::tensor::module::ctc_loss as lossy;
pub use burn::rl::AsyncPolicy as Actors;
pub use burn::nn::interpolate::Interpolate2dConfig as Up;
pub use burn::router::RouterChannel as Channel;
"""
HEADER = """use burn::prelude::*;
use burn::rl::{AsyncPolicy, Policy};
use burn::tensor::module::{ctc_loss, interpolate};
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
use burn::nn::interpolate::{Interpolate2d, InterpolateMode as NnMode};
use burn::nn::loss::CTCLoss;
use burn::router::{RouterChannel, RouterTensor};
use crate::aliases::*;

const WIDTH: usize = 5000;

pub struct Model<B: Backend> {
    loss: CTCLoss<B>,
    up: Interpolate2d,
}
"""
# Functions a rule reads (risky and safe, direct and through the crate's names, across a
# struct's fields and a constant), and functions none reads, with everything that makes
# lexing hard: braces in strings, raw strings, comments and char literals, lifetimes, macros,
# nested items, words of rules in comments and strings.
RULE_FNS = [
    """pub fn ctc_direct(lp: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([4, WIDTH], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], 5000, device);
    ctc_loss(lp, targets, il, tl, 0)
}
""",
    """pub fn ctc_alias(lp: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([4, 6000], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], 6000, device);
    lossy(lp, targets, il, tl, 0)
}
""",
    """impl<B: Backend> Model<B> {
    pub fn step(&self, lp: Tensor<3>, device: &Device) -> Tensor<1> {
        let targets = Tensor::<2, Int>::ones([4, 4096], device);
        let il = Tensor::<1, Int>::full([4], 10, device);
        let tl = Tensor::<1, Int>::full([4], 4096, device);
        self.loss.forward(lp, targets, il, tl)
    }
}
""",
    """pub fn resume<P: Policy + Clone>(policy: P, record: P::Record) -> AsyncPolicy<P> {
    let actors = AsyncPolicy::new(8, policy);
    actors.load_record(record)
}
""",
    """pub fn resume_alias<P: Policy + Clone>(policy: P, record: P::Record) {
    let actors = Actors::new(8, policy);
    actors.load_record(record);
}
""",
    """pub fn resize(x: Tensor<4>) -> Tensor<4> {
    let options = InterpolateOptions::new(InterpolateMode::Bicubic);
    let y = interpolate(x, [8, 8], options);
    y.backward();
    y
}
""",
    """pub fn upsample() -> Interpolate2d {
    Up::new([8, 8]).with_mode(NnMode::Cubic).init()
}
""",
    """pub fn migrate<C: RouterChannel>(t: RouterTensor<C::Client>, device: &C::Device) {
    C::change_client_backend(t, device);
}
""",
    """pub fn migrate_alias<C: Channel>(t: RouterTensor<C::Client>, device: &C::Device) {
    C::change_client_backend(t, device);
}
""",
    """pub fn allowed(lp: Tensor<3>, t: Tensor<2, Int>, il: Tensor<1, Int>, tl: Tensor<1, Int>) {
    // panic-lens: allow(ctc-target-capacity) widths checked by the caller
    ctc_loss(lp, t, il, tl, 0);
}
""",
]
PLAIN_FNS = [
    """pub fn braces_in_literals() -> (String, char, &'static str) {
    let s = format!("{{}} {} }}", r#"}" { "#);
    let c = '}';
    let d = b'{';
    (s, c, "ctc_loss(x) { load_record }")
}
""",
    """pub fn comments(values: &[usize]) -> usize {
    /* a block comment { with /* nesting } */ and braces */
    // interpolate(x) would go here: use the const WIDTH
    let mut acc = 0; // }
    for v in values { acc += v; }
    acc
}
""",
    """pub fn lifetimes<'a>(x: &'a str) -> &'a str {
    'outer: for _ in 0..3 {
        if x.is_empty() { break 'outer; }
    }
    x
}
""",
    """pub fn nested() -> usize {
    const LOCAL: usize = 3;
    fn helper(x: usize) -> usize { x * LOCAL }
    helper(2)
}
""",
    """pub fn shadow() -> usize {
    const WIDTH: usize = 10; // another WIDTH: the constant's value becomes ambiguous
    WIDTH
}
""",
    """pub fn macros(v: Vec<u8>) -> usize {
    let m = vec![1, 2, 3];
    assert!(!v.is_empty(), "{}", "}");
    m.len() + v.len()
}
""",
    """pub fn closures(values: Vec<usize>) -> Vec<usize> {
    values.into_iter().map(|v| { let w = v * 2; w + 1 }).collect()
}
""",
    """pub fn training_side(x: Tensor<2>) -> Tensor<2> {
    let y = x.require_grad();
    y
}
""",
    """pub trait Shape {
    fn dims(&self) -> usize;
    const RANK: usize = { 2 };
    fn twice(&self) -> usize { self.dims() * 2 }
}
""",
    """bench! { fn generated() { ctc_loss(a, b, c, d, 0) } }
""",
    """pub fn pointer(f: fn(u8) -> u8, p: *const u8) -> u8 {
    let raw = br##"a "# b"##;
    f(raw.len() as u8) + unsafe { *p }
}
""",
]


def write_crate(root: Path, body: str) -> Path:
    files = {
        "Cargo.toml": MANIFEST,
        "src/lib.rs": "pub mod aliases;\npub mod model;\n",
        "src/aliases.rs": ALIASES,
        "src/model.rs": HEADER + body,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root / "src" / "model.rs"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    parts=st.lists(st.sampled_from(range(len(RULE_FNS) + len(PLAIN_FNS))), min_size=1, max_size=8)
)
def test_outline_analyses_equal_full_ones_on_mixed_files(tmp_path: Path, parts: list[int]) -> None:
    pieces = [(RULE_FNS + PLAIN_FNS)[i] for i in parts]
    file = write_crate(tmp_path / "crate", "\n".join(pieces))
    src = file.read_bytes()
    words = Prefilter({}).outline(str(file), src)
    assert words is not None
    full = analyze(src, file)
    fast = analyze(src, file, run=RunMemo(), outline=words)
    assert (fast.findings, fast.notes) == (full.findings, full.notes)


def test_the_mixed_file_finds_every_rule_and_skips_the_plain_bodies(tmp_path: Path) -> None:
    """The property's pieces together: findings of every rule, most plain bodies skipped."""
    file = write_crate(tmp_path / "crate", "\n".join(RULE_FNS + PLAIN_FNS))
    src = file.read_bytes()
    words = Prefilter({}).outline(str(file), src)
    assert words is not None
    fast = analyze(src, file, run=RunMemo(), outline=words)
    assert {f.rule for f in fast.findings} >= {
        "ctc-target-capacity", "async-policy-load-record", "interpolate-backward-mode",
        "router-unsupported-dtype",
    }  # fmt: skip
    assert (fast.findings, fast.notes) == (analyze(src, file).findings, analyze(src, file).notes)
    facts = FileFacts.build(src, str(file), run=RunMemo(), outline=words)
    empty = [
        n for n in facts.tree.root_node.children
        if n.type == "function_item" and n.child_by_field_name("body").named_child_count == 0
    ]  # fmt: skip
    named = {node_name(n, src) for n in empty}
    assert {"lifetimes", "macros", "closures", "pointer"} <= named
    # kept: a nested item, a training word, a rule's word in a string or in a comment (the
    # search does not lex: a mention anywhere keeps a body), a rule's call
    assert not named & {"nested", "shadow", "training_side", "braces_in_literals", "comments"}


def node_name(node: Node, src: bytes) -> str:
    name = node.child_by_field_name("name")
    return src[name.start_byte : name.end_byte].decode() if name is not None else ""

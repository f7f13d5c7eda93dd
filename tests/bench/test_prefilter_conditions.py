"""The prefilter's conjunctive conditions are sound: a file is skipped only when its rule could
not fire, including through names other files of the crate give the second word (`use .. as`,
`type`). Every case compares the batch result with engine.check_paths on the same crate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panic_lens import batch, engine, prefilter
from panic_lens.rules.meta import SUPPRESSION_RULE, rules

CTC_MODULE = """use burn::prelude::*;
use {loss_import};

pub fn run<B: Backend>(lp: Tensor<B, 3>, device: &B::Device) -> Tensor<B, 1> {{
    let loss = {config}::new().init();
    let targets = Tensor::<B, 2, Int>::ones([4, 5000], device);
    let il = Tensor::<B, 1, Int>::full([4], 10, device);
    let tl = Tensor::<B, 1, Int>::full([4], 5000, device);
    loss.forward(lp, targets, il, tl)
}}
"""
ASYNC = """use {imp};

pub fn reload<P: Policy>(policy: {ty}<P>, record: Rec) {{
    let _ = policy.load_record(record);
}}
"""
ROUTER = """use burn::prelude::*;

pub fn mv<B: Backend>() {{
    let a = {device}::capture();
    let b = {device}::capture();
    let t = Tensor::<B, 1, Int>::from_ints_dtype([1, 2], (&a, DType::U8));
    let _ = t.to_device(&b);
}}
"""
PLAIN_FORWARD = "pub fn f(m: Model, x: Tensor) -> Tensor { m.forward(x) }\n"


def kept_and_equal(crate: Path) -> tuple[set[str], int]:
    """(names of the files the prefilter keeps, findings); batch must equal the engine."""
    expected = engine.check_paths([crate])
    assert batch.check_paths([crate]) == expected
    filt = prefilter.Prefilter({})
    files = sorted((crate / "src").rglob("*.rs"))
    kept = {p.name for p in files if filt.keeps(str(p), p.read_bytes())}
    return kept, len(expected.findings)


def test_forward_alone_is_skipped_forward_with_ctcloss_is_kept(
    make_crate: Callable[..., Path],
) -> None:
    direct = CTC_MODULE.format(loss_import="burn::nn::loss::CTCLossConfig", config="CTCLossConfig")
    crate = make_crate(
        "app",
        {"src/lib.rs": "mod a;\nmod b;\n", "src/a.rs": direct, "src/b.rs": PLAIN_FORWARD},
    )
    kept, found = kept_and_equal(crate)
    assert kept == {"a.rs"} and found >= 1


def test_ctcloss_through_a_crate_alias_keeps_forward(make_crate: Callable[..., Path]) -> None:
    uses = CTC_MODULE.format(loss_import="crate::losses::Cfg", config="Cfg")
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod losses;\nmod a;\nmod b;\n",
            "src/losses.rs": "pub use burn::nn::loss::CTCLossConfig as Cfg;\n",
            "src/a.rs": uses,
            "src/b.rs": PLAIN_FORWARD,
        },
    )
    kept, found = kept_and_equal(crate)
    assert "a.rs" in kept and "b.rs" not in kept and found >= 1


def test_load_record_needs_async_policy_or_an_alias(make_crate: Callable[..., Path]) -> None:
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod prelude;\nmod a;\nmod b;\nmod c;\n",
            "src/prelude.rs": "pub use burn::rl::{Policy, AsyncPolicy as Served};\n",
            "src/a.rs": ASYNC.format(imp="crate::prelude::{Policy, Served}", ty="Served"),
            "src/b.rs": ASYNC.format(imp="burn::rl::{Policy, AsyncPolicy}", ty="AsyncPolicy"),
            "src/c.rs": ASYNC.format(imp="burn::rl::Policy", ty="Vec"),
        },
    )
    kept, found = kept_and_equal(crate)
    assert kept == {"a.rs", "b.rs"} and found == 2  # c.rs: no AsyncPolicy


def test_a_type_alias_in_another_file_keeps_load_record(make_crate: Callable[..., Path]) -> None:
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod kinds;\nmod a;\n",
            "src/kinds.rs": "use burn::rl::AsyncPolicy;\npub type Shared<P> = AsyncPolicy<P>;\n",
            "src/a.rs": ASYNC.format(
                imp="burn::rl::Policy;\nuse crate::kinds::Shared", ty="Shared"
            ),
        },
    )
    kept, _ = kept_and_equal(crate)
    assert "a.rs" in kept


def test_to_device_needs_a_capture_device(make_crate: Callable[..., Path]) -> None:
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "mod a;\nmod b;\n",
            "src/a.rs": ROUTER.format(device="Device"),
            "src/b.rs": "pub fn f(t: Tensor, d: &Device) -> Tensor { t.to_device(d) }\n",
        },
        features='"router", "wgpu", "ndarray"',
    )
    kept, _ = kept_and_equal(crate)
    assert kept == {"a.rs"}


def test_golden_cross_file_cases_keep_every_flagged_file() -> None:
    golden = Path(__file__).resolve().parents[1] / "golden"
    crates = [p for p in golden.iterdir() if (p / "Cargo.toml").is_file()]
    assert len(crates) > 10
    flagged = {f.path for f in engine.check_paths(crates).findings}
    filt = prefilter.Prefilter({})
    assert flagged and all(filt.keeps(str(p), Path(str(p)).read_bytes()) for p in flagged)
    assert batch.check_paths(crates) == engine.check_paths(crates)


def test_alias_sites_are_use_items_and_type_statements() -> None:
    found = prefilter.crate_alias_map(
        [
            b"pub use burn::rl::{AsyncPolicy as Served, Policy as P};\n",
            b"use crate::Served as Inner;\nfn f(n: u32) -> usize { n as usize }\n",
            b"// use burn::nn::loss::CTCLoss as Commented;\n",
            b"let reuse = CTCLoss; let subtype = 1;\npub type Loss<B> = CTCLoss<B>;\n",
        ]
    )
    assert found[b"AsyncPolicy"] == {b"Served", b"Inner"}
    assert found[b"CTCLoss"] == {b"Loss"}


def test_own_words_finds_a_word_that_overlaps_another() -> None:
    # `load_record` starting on the last letter of `RouterChannel`: the search is overlapping
    found = prefilter.own_words(b"let x = RouterChanneload_record;\n")
    assert found == {b"RouterChannel", b"load_record"}


def test_own_words_equals_a_search_per_word_for_every_pair_of_words() -> None:
    # every way two words can meet: apart, touching, and sharing letters where one's end is
    # the other's start (one inside another included)
    words = prefilter.group_words()
    texts = []
    for a in words:
        for b in words:
            texts += [a + b" " + b, a + b]
            texts += [a + b[k:] for k in range(1, min(len(a), len(b))) if a[-k:] == b[:k]]
    assert len(texts) > 2 * len(words) ** 2  # some words overlap
    for data in texts:
        assert prefilter.own_words(data) == {w for w in words if w in data}, data


@given(st.lists(st.sampled_from([*prefilter.group_words(), b"RouterChanne", b"_", b" "])))
def test_own_words_equals_a_search_per_word(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert prefilter.own_words(data) == {w for w in prefilter.group_words() if w in data}


INTERP_CALL = """use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn up<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bicubic))
}
"""
DOC_ONLY = """/// Resizes like `interpolate` would, with a "mode" (see interpolate's docs).
pub fn resize(x: &str) -> usize { // not interpolate(x) either
    let c = '"'; // a quote in a char does not open a string
    x.len()
}
"""


def test_words_in_comments_keep_their_file(make_crate: Callable[..., Path]) -> None:
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "mod a;\nmod b;\nmod c;\nmod d;\n",
            "src/a.rs": INTERP_CALL,
            "src/b.rs": DOC_ONLY,
            # the word in a string: kept (a parser in trouble may read a string as code)
            "src/c.rs": 'pub fn name() -> &\'static str { "interpolate(x)" }\n',
            "src/d.rs": "/* see */ pub fn f() {} // interpolate(x)\n",
        },
    )
    # comments are not lexed out: the analysis of b.rs and d.rs finds nothing, as batch's
    kept, found = kept_and_equal(crate)
    assert kept == {"a.rs", "b.rs", "c.rs", "d.rs"} and found == 1


def test_a_crate_alias_in_code_keeps_a_file_whose_word_is_in_comments(
    make_crate: Callable[..., Path],
) -> None:
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod ops;\nmod a;\n",
            "src/ops.rs": "pub use burn::tensor::module::interpolate as resize;\n",
            "src/a.rs": INTERP_CALL.replace(
                "use burn::tensor::module::interpolate;", "use crate::ops::resize;"
            ).replace("    interpolate(", "    // not interpolate: resize\n    resize("),
        },
    )
    kept, found = kept_and_equal(crate)
    assert "a.rs" in kept and found == 1


def test_a_suppression_comment_alone_keeps_its_file() -> None:
    filt = prefilter.Prefilter({})
    assert filt.keeps("x.rs", b"// panic-lens: allow(interpolate-backward-mode)\nfn f() {}\n")


def test_a_rule_call_name_counts_only_where_it_is_called(make_crate: Callable[..., Path]) -> None:
    """A rule finds calls only: a file that imports or names `interpolate` without calling it
    is skipped; a call with spaces before `(` or with a turbofish, or by a crate alias, is not."""
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod ops;\nmod a;\nmod b;\nmod c;\nmod d;\n",
            "src/ops.rs": "pub use burn::tensor::module::interpolate as resize;\n",
            "src/a.rs": INTERP_CALL.replace("    interpolate(", "    interpolate  ("),
            "src/b.rs": INTERP_CALL.replace("    interpolate(", "    interpolate::<B>("),
            "src/c.rs": INTERP_CALL.replace("    interpolate(x,", "    let f = interpolate; f(x,"),
            "src/d.rs": INTERP_CALL.replace(
                "use burn::tensor::module::interpolate;", "use crate::ops::resize;"
            ).replace("    interpolate(", "    resize("),
        },
    )
    kept, found = kept_and_equal(crate)
    # a crate alias counts as a call wherever it is written (ops.rs declares it)
    assert kept == {"a.rs", "b.rs", "d.rs", "ops.rs"} and found == 3


@pytest.mark.parametrize(
    ("text", "called"),
    [
        (b"x.permute([0, 0])", True),
        (b"x.permute\n    ([0, 0])", True),
        (b"Tensor::permute::<3>(x, [0, 0])", True),
        (b"let f = Tensor::permute;", False),
        (b"x.permutes([0])", False),
        (b"x.re_permute([0])", False),
    ],
)
def test_own_words_mark_a_called_word(text: bytes, called: bool) -> None:
    found = prefilter.own_words(text)
    assert b"permute" in found
    assert (b"permute(" in found) is called


_REPO = Path(__file__).resolve().parents[2]
_EXAMPLES = sorted(
    [*(_REPO / "server" / "panic_lens" / "rules" / "defs").glob("*.rs"),
     *(_REPO / "tests" / "corpus" / "panics").glob("*/example.rs"),
     *(_REPO / "tests" / "golden").glob("*/src/**/*.rs")]
)  # fmt: skip


def test_every_example_with_a_finding_is_kept() -> None:
    """The rules' examples, the corpus of burn panics and the golden crates: a file in which
    the engine finds something, a hint included, is never skipped by the prefilter."""
    flagged = [p for p in _EXAMPLES if engine.analyze(p.read_bytes(), str(p)).findings]
    assert len(flagged) >= 100  # most examples have findings: the check below means something
    skipped = [p for p in flagged if not prefilter.Prefilter({}).keeps(str(p), p.read_bytes())]
    assert skipped == []


def test_running_only_the_rules_that_may_fire_gives_the_same_analysis() -> None:
    """`Prefilter.rules_for` names every rule that finds something in a file: the engine told
    to run only those gives the same findings and notes, on every example. Its hovers are the
    whole Analysis's, less those of a rule whose `words` the file lacks (a call it cannot flag,
    whose condition is unknown there; the server, which shows hovers, runs every rule)."""
    filt = prefilter.Prefilter({})
    gated = 0
    for path in _EXAMPLES:
        data = path.read_bytes()
        may_fire = filt.rules_for(str(path), data)
        assert may_fire is not None
        full = engine.analyze(data, str(path))
        got = engine.analyze(data, str(path), may_fire=may_fire)
        assert (got.findings, got.notes) == (full.findings, full.notes), path
        dropped = [h for h in full.hovers if h not in got.hovers]
        assert set(got.hovers) <= set(full.hovers), path
        assert all(h.rule not in may_fire and not h.flagged for h in dropped), path
        assert {f.rule for f in full.findings} - {SUPPRESSION_RULE} <= may_fire, path
        gated += len(rules()) - len(may_fire)
    assert gated > len(_EXAMPLES)  # the gate left rules out: the equality above means something


def test_rules_for_adds_the_rules_a_crate_alias_names(make_crate: Callable[..., Path]) -> None:
    """`use ..::ctc_loss as c;` in one file lets ctc fire in another that calls `c(`."""
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "mod names;\nmod uses;\n",
            "src/names.rs": "pub use burn::tensor::module::ctc_loss as shrink;\n",
            "src/uses.rs": "use crate::names::shrink;\npub fn f() { shrink(a, b, c, d, 0); }\n",
        },
    )
    filt = prefilter.Prefilter({})
    uses = crate / "src" / "uses.rs"
    assert "ctc-target-capacity" in (filt.rules_for(str(uses), uses.read_bytes()) or ())
    plain = b"pub fn f() { shrink(a, b, c, d, 0); }\n"
    assert "ctc-target-capacity" not in (prefilter.Prefilter({}).rules_for("x.rs", plain) or ())


# A type's function called by path needs the type written as the path's qualifier; called as a
# method, the type's name anywhere (a receiver's type). `Slice::new` is slice-step-zero's.
@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (b"fn f() { let s = Slice::new(0, None, 0); }", True),
        (b"fn f() { let s = burn::tensor::Slice :: new(0, None, 0); }", True),
        (b"fn f() { let s = <Slice as Clone>::new(0, None, 0); }", True),
        (b"fn f() { let s = <Slice>::new(0, None, 0); }", True),
        (b"fn f(s: Slice) { s\n    .new(0) }", True),  # a method form, if one existed
        (b"fn f() { let s = <burn::tensor::Slice> :: new(0, None, 0); }", True),
        (b"fn f() { let s = <X as Slice>::new(0, None, 0); }", True),  # the trait's function
        (b"fn f() -> Vec<Slice> { Vec::new() }", False),  # `Slice>` closes no qualifier here
        (b"fn f(s: &[Slice]) -> Vec<u8> { Vec::new() }", False),  # another type's `new`
        (b"fn f(s: SliceArg) { let v = Vec::new(); }", False),
        (b"// Slice::new(0, None, 0)\nfn f() {}", True),  # comments count
    ],
)
def test_a_qualified_call_needs_its_owner_as_qualifier(text: bytes, kept: bool) -> None:
    assert prefilter.Prefilter({}).keeps("x.rs", text) is kept


def test_an_alias_of_the_owner_keeps_its_path_calls(make_crate: Callable[..., Path]) -> None:
    body = "pub fn f() -> usize {{ let s = {}::new(0, Some(4), 0); 1 }}\n"
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod names;\nmod a;\nmod b;\n",
            "src/names.rs": "pub use burn::tensor::Slice as Sl;\n",
            "src/a.rs": "use crate::names::Sl;\n" + body.format("Sl"),
            "src/b.rs": "use burn::tensor::Slice as S2;\n" + body.format("S2"),
        },
    )
    kept, found = kept_and_equal(crate)
    assert {"a.rs", "b.rs"} <= kept and found == 2


def test_possible_rules_are_the_rules_with_a_complete_group() -> None:
    """`possible_rules` (looked up by the groups filed under the words present) gives exactly
    the rules one of whose groups has every word present, on random sets of group words."""
    import random

    words = sorted({w.encode() for rule in rules() for g in rule.prefilter_groups for w in g})
    chooser = random.Random(21)
    for size in (1, 2, 3, 5, 8, 13, 21, len(words)):
        for _ in range(40):
            present = frozenset(chooser.sample(words, min(size, len(words))))
            expected = {
                rule.id
                for rule in rules()
                if any(all(w.encode() in present for w in g) for g in rule.prefilter_groups)
            }
            assert prefilter.possible_rules(present | {prefilter.SUPPRESSION_MARKER}) == expected


CTC_BY_ALIAS = """use burn::prelude::*;
use burn::tensor::module::ctc_loss as ctc;
fn f<B: Backend>(d: &B::Device, a: Tensor<B, 3>, c: Tensor<B, 1, Int>, e: Tensor<B, 1, Int>) {
    let targets = Tensor::<B, 2, Int>::zeros([2, 5000], d);
    let l = ctc(a, targets, c, e, 0);
}
"""


def test_a_files_own_alias_counts_where_no_crate_source_gives_it(
    make_crate: Callable[..., Path], tmp_path: Path
) -> None:
    """A `use .. as` in a file that is not one of its crate's `src/` files (an integration
    test, an example, a file of no crate) renames a call there too: `check` keeps the file
    and finds what the engine finds."""
    crate = make_crate("app", {"src/lib.rs": "pub fn f() {}\n", "tests/ctc.rs": CTC_BY_ALIAS})
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "ctc.rs").write_text(CTC_BY_ALIAS)
    for tree in (crate, loose):
        expected = engine.check_paths([tree]).findings
        assert [f.rule for f in expected] == ["ctc-target-capacity"], tree
        assert batch.check_paths([tree], jobs=1).findings == expected

"""evaluate.callers and calls with a helper's tensor parameters: what its callers give through
the helper's pattern `let`s (`let [b, c, h, w] = x.dims();`, `let Dims { d, .. } = ..`), its
const generics (`top::<5>(x)`), a list of its tensors (`vec![a, b]`) and the burn module it
builds from its parameters. Look-alikes stay unknown: callers that disagree, a run-time
value, recursion, a const of the same name outside the function."""

from __future__ import annotations

from panic_lens import evaluate
from panic_lens.engine import analyze
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import Node, walk

HEAD = "use burn::prelude::*;\nuse burn::nn::EmbeddingConfig;\n"


def found(src: str, rule: str) -> list[tuple[int, str]]:
    """(line in `src`, message) of each finding of `rule` (HEAD's two lines above `src`)."""
    analysis = analyze(HEAD + src, "src/lib.rs")
    return [(f.span.start.row + 1 - 2, f.message) for f in analysis.findings if f.rule == rule]


def _node(facts: FileFacts, text: str, after: int = 0) -> Node:
    """The first node of `facts` written `text` from byte `after` on."""
    nodes = walk(facts.tree.root_node)
    return next(n for n in nodes if n.start_byte >= after and facts.text(n) == text)


def framed(src: str, asked: str, text: str) -> list[tuple[str, object]]:
    """(label, dims or value) of `text` in each caller's frame of `asked` (both nodes of
    `src`, by their text)."""
    analyze(HEAD, "src/lib.rs")  # the rules layer registers the module reader
    facts = FileFacts.build((HEAD + src).encode(), "src/lib.rs")
    out: list[tuple[str, object]] = []
    where = _node(facts, asked)
    node = _node(facts, text, where.start_byte)
    for frame in evaluate.frames_at(where, facts):
        shape = evaluate.shape_of(node, facts, frame)
        if shape is not None and shape.dims is not None:
            out.append((frame.label, tuple(d if isinstance(d, int) else None for d in shape.dims)))
        else:
            value = evaluate.value_of(node, facts, frame)
            out.append((frame.label, value.value if value is not None else None))
    return out


MIX = """
fn mix(images: Tensor<4>, lam: Tensor<1>) -> Tensor<4> {
    let [b, c, h, w] = images.dims();
    lam.unsqueeze::<4>().expand([b, c, h, w])
}
pub fn run(d: &Device, n: usize) {
    let images = Tensor::<4>::zeros([8, 3, 4, 4], d);
    let _a = mix(images.clone(), Tensor::<1>::zeros([4], d));
    let _b = mix(images.clone(), Tensor::<1>::zeros([n], d));
    let _c = mix(images, Tensor::<1>::zeros([LEN], d));
}
"""


def test_a_slice_pattern_let_reads_the_parameter_its_value_names() -> None:
    """`let [b, c, h, w] = images.dims();`: a call naming `b` gets the callers' `images`."""
    (hit,) = found(MIX.replace("LEN", "8"), "expand-incompatible-shape")
    assert hit[0] == 4 and hit[1].endswith(
        "(when called as mix(images, Tensor::<1>::zeros([8], d)) at line 12)"
    )
    # a weight per last dim, or a run-time length: nothing to flag
    assert found(MIX.replace("LEN", "1"), "expand-incompatible-shape") == []


STRUCT_LET = """
pub struct Dims { pub width: usize }
fn dims_of(wide: bool) -> Dims {
    if wide { Dims { width: 64 } } else { Dims { width: 16 } }
}
fn embed(wide: bool, tokens: Tensor<2, Int>, d: &Device) -> Tensor<3> {
    let Dims { width } = dims_of(wide);
    EmbeddingConfig::new(100, width).init(d).forward(tokens)
}
pub fn run(d: &Device, flag: bool) {
    let tokens = Tensor::<2, Int>::zeros([1, 4], d);
    let _a = embed(true, tokens.clone(), d);
    let _b = embed(false, tokens.clone(), d);
    let _c = embed(flag, tokens, d);
}
"""


def test_a_struct_pattern_let_and_the_module_a_helper_builds_read_the_callers_values() -> None:
    """`let Dims { width } = dims_of(wide);` names `wide`; the Embedding built from `width`
    is read in each caller's frame: one width per caller, none for a run-time flag."""
    forward = "EmbeddingConfig::new(100, width).init(d).forward(tokens)"
    got = framed(STRUCT_LET, forward, forward)
    assert [dims for _, dims in got] == [(1, 4, 64), (1, 4, 16), (1, 4, None)]


WIDE = """
pub fn wide(d: &Device) -> Tensor<3> {
    embed(true, Tensor::<2, Int>::zeros([2, 5], d), d)
}
"""


def test_a_module_a_helper_builds_from_its_parameters_is_read_at_a_direct_call() -> None:
    """The shape a call of the helper returns: its module's config read with the call's
    arguments (before, the config was read where it is written, its parameters unknown)."""
    src = STRUCT_LET + WIDE
    analyze(HEAD, "src/lib.rs")
    facts = FileFacts.build((HEAD + src).encode(), "src/lib.rs")
    call = _node(facts, "embed(true, Tensor::<2, Int>::zeros([2, 5], d), d)")
    shape = evaluate.shape_of(call, facts)
    assert shape is not None and shape.dims == (2, 5, 64)


TOPK = """
const K: usize = 9;
fn best<const K: usize>(logits: Tensor<2>) -> Tensor<2> {
    logits.topk(K, 1)
}
pub fn run(d: &Device) {
    let _a = best::<2>(Tensor::<2>::zeros([4, 3], d));
    let _b = best::<CALL>(Tensor::<2>::zeros([4, 3], d));
}
"""


def test_a_const_generic_is_what_the_callers_turbofish_gives() -> None:
    """`best::<5>(x)` of `fn best<const K: usize>`: K is 5 in that caller's frame; the callers
    disagree (2 fits, 5 does not): the finding names the one that panics."""
    (hit,) = found(TOPK.replace("CALL", "5"), "topk-k-out-of-range")
    assert (
        hit[0] == 4
        and "(when called as best::<5>(Tensor::<2>::zeros([4, 3], d)) at line 10)" in hit[1]
    )
    assert found(TOPK.replace("CALL", "3"), "topk-k-out-of-range") == []


def test_a_const_generic_is_never_the_crates_const_of_the_same_name() -> None:
    """Inside `fn best<const K: usize>` nobody calls, `K` is unknown (not the module's 9), as
    is a caller's own const generic passed on, and a recursive call's."""
    uncalled = TOPK.split("pub fn run")[0]
    assert found(uncalled, "topk-k-out-of-range") == []
    passed_on = uncalled + "pub fn outer<const N: usize>(x: Tensor<2>) { best::<N>(x); }\n"
    assert found(passed_on, "topk-k-out-of-range") == []
    recursive = """
fn best<const K: usize>(logits: Tensor<2>) -> Tensor<2> {
    if K > 100 { return best::<9>(logits); }
    logits.topk(K, 1)
}
"""
    assert found(recursive, "topk-k-out-of-range") == []


def test_a_const_generic_passed_on_by_a_turbofish_is_the_callers() -> None:
    """`best::<N>(x)` inside `fn outer<const N: usize>`: K is N as `outer`'s caller gives it
    (not a const N of the crate)."""
    src = TOPK.split("pub fn run")[0] + (
        "const N: usize = 1;\n"
        "fn outer<const N: usize>(x: Tensor<2>) -> Tensor<2> { best::<N>(x) }\n"
        "pub fn run(d: &Device) { let _ = outer::<CALL>(Tensor::<2>::zeros([4, 3], d)); }\n"
    )
    (hit,) = found(src.replace("CALL", "7"), "topk-k-out-of-range")
    assert hit[0] == 4 and "when called as best::<N>(x)" in hit[1]
    assert "when called as outer::<7>" in hit[1]
    assert found(src.replace("CALL", "2"), "topk-k-out-of-range") == []


def test_a_const_generic_in_a_frame_is_read_by_value() -> None:
    got = framed(TOPK.replace("CALL", "5"), "logits.topk(K, 1)", "K")
    assert [value for _, value in got] == [2, 5]


CAT = """
fn join(ids: Tensor<3>, dense: Tensor<2>) -> Tensor<3> {
    let dense = dense.unsqueeze_dim::<3>(1);
    Tensor::cat(vec![ids, dense], 1)
}
pub fn run(d: &Device, n: usize) {
    let _a = join(Tensor::<3>::zeros([4, 1, 16], d), Tensor::<2>::zeros([4, 16], d));
    let _b = join(Tensor::<3>::zeros([n, 1, 16], d), Tensor::<2>::zeros([n, 16], d));
    let _c = join(Tensor::<3>::zeros([4, 1, WIDTH], d), Tensor::<2>::zeros([4, 16], d));
}
"""


def test_a_list_holds_the_tensors_callers_give_a_helpers_parameters() -> None:
    """`vec![ids, dense]` with `ids` a parameter a caller gives as a tensor: the list's item is
    that tensor (it was an unknown item, so the list was unknown)."""
    (hit,) = found(CAT.replace("WIDTH", "64"), "cat-mismatched-shapes")
    assert hit[0] == 4 and "when called as join(Tensor::<3>::zeros([4, 1, 64], d)" in hit[1]
    assert found(CAT.replace("WIDTH", "16"), "cat-mismatched-shapes") == []

"""evaluate: across functions of the crate. A helper called with known values is evaluated
with them (recursion cut, a few calls deep); `self.field` is what every literal of the struct
in its file sets; a burn module in a field carries its type and config into `forward`."""

from __future__ import annotations

import pytest
from evaluate_helpers import dims_at, value_at

import panic_lens.rules.language.values  # noqa: F401  (registers how modules are read)

MODEL = """use burn::prelude::*;
use burn::nn::{Linear, LinearConfig, LayerNorm, LayerNormConfig, Relu};
#[derive(Module, Debug)]
pub struct Model<B: Backend> {
    linear: Linear<B>,
    norm: LayerNorm<B>,
    act: Relu,
    heads: usize,
    pub open: usize,
}
impl<B: Backend> Model<B> {
    pub fn new(device: &B::Device) -> Self {
        Self {
            linear: LinearConfig::new(28, 64).init(device),
            norm: LayerNormConfig::new(64).init(device),
            act: Relu::new(),
            heads: HEADS,
            open: 2,
        }
    }
    pub fn forward(&self, d: &B::Device) -> Tensor<B, 3> {
        let x = Tensor::<B, 3>::zeros([8, 10, 28], d);
        BODY
    }
}
const HEADS: usize = 4;
"""


@pytest.mark.parametrize(
    ("body", "dims"),
    [
        ("let y = /*here*/ self.linear.forward(x);", (8, 10, 64)),
        ("let y = /*here*/ self.act.forward(self.norm.forward(self.linear.forward(x)));",
         (8, 10, 64)),
        ("let y = /*here*/ self.norm.forward(x.clone());", (8, 10, 28)),
    ],
)  # fmt: skip
def test_modules_in_fields_carry_their_config(body: str, dims: tuple[int, ...]) -> None:
    assert dims_at(MODEL.replace("BODY", body)) == dims


def test_a_field_is_what_the_struct_literal_sets() -> None:
    assert value_at(MODEL.replace("BODY", "let h = /*here*/ self.heads;")) == 4
    # a pub field may be set anywhere: unknown
    assert value_at(MODEL.replace("BODY", "let h = /*here*/ self.open;")) is None
    # two literals that disagree, or an assignment anywhere: unknown
    two = MODEL.replace("BODY", "let h = /*here*/ self.heads;") + (
        "impl<B: Backend> Model<B> { fn other(d: &B::Device) -> Self { Self { linear: "
        "LinearConfig::new(1, 1).init(d), norm: LayerNormConfig::new(1).init(d), act: "
        "Relu::new(), heads: 8, open: 1 } } }"
    )
    assert value_at(two) is None
    changed = MODEL.replace("BODY", "let h = /*here*/ self.heads;") + (
        "fn set<B: Backend>(m: &mut Model<B>) { m.heads = 9; }"
    )
    assert value_at(changed) is None


@pytest.mark.parametrize(
    ("src", "value"),
    [
        ("fn h(n: usize) -> usize { n * 2 }\nfn f() { let x = /*here*/ h(4); }", 8),
        ("fn h(n: usize) -> usize { if n > 2 { return 1; } n }\nfn f() { let x = /*here*/ h(4); }",
         None),  # the returns disagree
        ("fn h(n: usize) -> usize { g(n) }\nfn g(n: usize) -> usize { h(n) }\n"
         "fn f() { let x = /*here*/ h(4); }", None),  # mutual recursion: cut
        ("fn h(n: usize) -> usize { n + 1 }\nfn f(k: usize) { let x = /*here*/ h(k); }", None),
        ("struct S;\nimpl S { fn twice(&self, n: usize) -> usize { n * 2 }\n"
         "fn f(&self) { let x = /*here*/ self.twice(3); } }", 6),
        ("struct S;\nimpl S { fn size() -> usize { 16 }\n"
         "fn f(&self) { let x = /*here*/ Self::size(); } }", 16),
        ("fn f() { fn inner(k: usize) -> usize { k + 1 } let x = /*here*/ inner(1); }", 2),
        ("fn a() { fn inner() -> usize { 1 } }\nfn inner() -> usize { 5 }\n"
         "fn f() { let x = /*here*/ inner(); }", 5),  # another body's fn is not seen
    ],
)  # fmt: skip
def test_helpers_called_with_known_values(src: str, value: object) -> None:
    assert value_at(src) == value

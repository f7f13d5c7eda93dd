"""evaluate: across functions of the crate. A helper called with known values is evaluated
with them (recursion cut, a few calls deep); `self.field` is what every literal of the struct
in its file sets; a burn module in a field carries its type and config into `forward`."""

from __future__ import annotations

import pytest
from evaluate_helpers import dims_at, value_at

# (they register how the crate's configs and burn's modules are read)
from panic_lens.rules.language import config_values, own_configs  # noqa: F401

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
        # a parameter's shape from the same config (Linear's default Row layout)
        ("let y = /*here*/ self.linear.weight.val();", (28, 64)),
        ("let y = /*here*/ self.norm.gamma.val().unsqueeze::<2>();", (1, 64)),
        ("let y = /*here*/ self.linear.bias.val();", None),  # an Option: not sized
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
        # a method of a unit struct of the crate called on the struct's name as a value
        ("struct Dec;\nimpl Dec { fn width(&self) -> usize { 40 } }\n"
         "struct Enc;\nimpl Enc { fn width(&self) -> usize { 12 } }\n"
         "fn f() { let x = /*here*/ Dec.width(); }", 40),
        ("struct Dec;\nimpl Dec { fn width(&self) -> usize { 40 } }\n"
         "fn f(Dec: usize) { let x = /*here*/ Dec.width(); }", None),  # a local, not the struct
    ],
)  # fmt: skip
def test_helpers_called_with_known_values(src: str, value: object) -> None:
    assert value_at(src) == value


STEM = """use burn::prelude::*;
use burn::nn::conv::{Conv1d, Conv1dConfig};
use burn::nn::pool::{MaxPool1d, MaxPool1dConfig};
#[derive(Config, Debug)]
pub struct StemConfig {
    #[config(default = 256)]
    pub width: usize,
}
#[derive(Module, Debug)]
pub struct Stem {
    conv: Conv1d,
    pool: MaxPool1d,
}
impl StemConfig {
    pub fn init(&self, device: &Device) -> Stem {
        let down = |c_in: usize, c_out: usize| {
            Conv1dConfig::new(c_in, c_out, 3).with_stride(2).init(device)
        };
        Stem { conv: down(80, self.width), pool: MaxPool1dConfig::new(2).init() }
    }
}
impl Stem {
    pub fn forward(&self, x: Tensor<3>) -> (Tensor<3>, Tensor<3>) {
        let y = self.conv.forward(x);
        (y.clone(), self.pool.forward(y))
    }
}
fn f(d: &Device) {
    let stem = StemConfig::new().init(d);
    let x = Tensor::<3>::zeros([4, 80, 3001], d);
    BODY
}
"""


@pytest.mark.parametrize(
    ("body", "dims"),
    [
        # a module built by a closure bound by `let`, read in the frame of its call
        ("let (a, b) = stem.forward(x); let y = /*here*/ a;", (4, 256, 1500)),
        # the second element of the tuple every exit returns
        ("let (a, b) = stem.forward(x); let y = /*here*/ b;", (4, 256, 750)),
        # a module field of a local struct value (not `self`)
        ("let y = /*here*/ stem.pool.forward(Tensor::<3>::zeros([4, 8, 10], d));", (4, 8, 5)),
        ("let (a, b) = (x.clone(), 3); let y = /*here*/ a;", (4, 80, 3001)),
        # no tuple: the call's own shape is unknown, as is a place past its end
        ("let y = /*here*/ stem.forward(x);", None),
        ("let (a, b, c) = stem.forward(x); let y = /*here*/ c;", None),
    ],
)  # fmt: skip
def test_tuples_closures_and_local_module_values(body: str, dims: object) -> None:
    assert dims_at(STEM.replace("BODY", body)) == dims


def test_a_closure_call_gives_its_value_and_shape() -> None:
    src = """use burn::prelude::*;
fn f(d: &Device, n: usize) {
    let k = 3;
    let area = |w: usize, h: usize| w * h + k;
    let crop = |t: Tensor<2>, m| t.narrow(1, 0, m);
    let t = Tensor::<2>::zeros([2, 10], d);
    BODY
}
"""
    assert value_at(src.replace("BODY", "let y = /*here*/ area(4, 5);")) == 23
    assert value_at(src.replace("BODY", "let y = /*here*/ area(4, n);")) is None
    assert dims_at(src.replace("BODY", "let y = /*here*/ crop(t, 4);")) == (2, 4)
    changed = src.replace("BODY", "let area = |w: usize| w; let y = /*here*/ area(4);")
    assert value_at(changed) == 4  # the closure bound last


def test_a_const_array_has_its_shape() -> None:
    src = """use burn::prelude::*;
const ANCHORS: [[f32; 2]; 3] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
mod grid { pub const CELLS: [f32; 4] = [0.0; 4]; }
struct Head;
impl Head { const BIAS: [f32; 5] = [0.0; 5]; fn f(d: &Device) { BODY } }
"""
    assert dims_at(src.replace("BODY", "let y = /*here*/ Tensor::<2>::from_data(ANCHORS, d);")) == (
        3,
        2,
    )
    assert dims_at(
        src.replace("BODY", "let y = /*here*/ Tensor::<1>::from_data(grid::CELLS, d);")
    ) == (4,)
    assert dims_at(
        src.replace("BODY", "let y = /*here*/ Tensor::<1>::from_data(Self::BIAS, d);")
    ) == (5,)


def test_a_collected_map_is_a_list_of_one_shape() -> None:
    """`items.iter().map(..).collect()` into `Tensor::cat`/`stack`: the dims every item shares
    are known, the count (the cat's sum, the stack's new dim) is not; a dim that depends on
    the item is unknown."""
    src = """use burn::prelude::*;
fn f(items: Vec<Vec<f32>>, d: &Device) {
    let fixed = items
        .iter()
        .map(|v| Tensor::<4>::from_data(TensorData::new(v.clone(), [1, 3, 32, 32]), d))
        .collect::<Vec<_>>();
    let sized = items
        .iter()
        .map(|v| Tensor::<2>::from_data(TensorData::new(v.clone(), [1, v.len()]), d))
        .collect::<Vec<_>>();
    BODY
}
"""
    assert dims_at(src.replace("BODY", "let y = /*here*/ Tensor::cat(fixed, 0);")) == (
        None,
        3,
        32,
        32,
    )
    assert dims_at(src.replace("BODY", "let y = /*here*/ Tensor::cat(fixed, 1);")) == (
        1,
        None,
        32,
        32,
    )
    assert dims_at(src.replace("BODY", "let y = /*here*/ Tensor::stack::<5>(fixed, 0);")) == (
        None,
        1,
        3,
        32,
        32,
    )
    assert dims_at(src.replace("BODY", "let y = /*here*/ Tensor::cat(sized, 0);")) == (None, None)


def test_an_explicit_padding_through_a_let_and_a_clone() -> None:
    """`let padding = PaddingConfig1d::Explicit(1, 1);` then `.with_padding(padding.clone())`:
    the padding's amounts are read where the variant is written."""
    src = """use burn::prelude::*;
use burn::nn::conv::Conv1dConfig;
use burn::nn::PaddingConfig1d;
fn f(d: &Device) {
    let padding = PaddingConfig1d::Explicit(1, 1);
    let conv = Conv1dConfig::new(80, 384, 3).with_stride(2).with_padding(padding.clone()).init(d);
    let x = Tensor::<3>::zeros([1, 80, 3000], d);
    let y = /*here*/ conv.forward(x);
}
"""
    assert dims_at(src) == (1, 384, 1500)


def test_an_array_a_caller_passes_is_data_of_its_shape() -> None:
    """A helper building a tensor from an array parameter: the caller's array gives its
    shape; a list of tensors a caller passes is no data."""
    src = """use burn::prelude::*;
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
fn channel_last(values: [f32; 3], device: &Device) -> Tensor<4> {
    Tensor::<1>::from_floats(values, device).reshape([1, 1, 1, 3])
}
fn rows(values: [[f32; 2]; 2], device: &Device) -> Tensor<2> {
    Tensor::<2>::from_floats(values, device)
}
fn join(parts: Vec<Tensor<2>>) -> Tensor<2> {
    Tensor::cat(parts, 0)
}
fn f(d: &Device) {
    BODY
}
"""
    assert dims_at(src.replace("BODY", "let y = /*here*/ channel_last(MEAN, d);")) == (1, 1, 1, 3)
    assert dims_at(src.replace("BODY", "let y = /*here*/ rows([[1.0, 2.0], [3.0, 4.0]], d);")) == (
        2,
        2,
    )
    two = "let a = Tensor::<2>::zeros([2, 3], d); let y = /*here*/ join(vec![a.clone(), a]);"
    assert dims_at(src.replace("BODY", two)) in ((4, 3), (None, None), None)  # never 1-d data


DERIVED = """
#[derive(Clone, Debug, Default)]
pub struct Hp {
    pub dropout: f64,
    pub layers: usize,
    pub name: String,
    pub clip: Option<usize>,
    pub sizes: Vec<usize>,
    pub train: bool,
}
pub struct Plain { pub dropout: f64 }
#[derive(Default)]
pub struct Manual { pub dropout: f64 }
impl Manual { pub fn default() -> Self { Self { dropout: 0.5 } } }
"""


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("let hp = Hp::default();\n    g(/*here*/hp.dropout)", 0.0),
        ("let hp = Hp::default();\n    g(/*here*/hp.layers)", 0),
        ("let hp = Hp::default();\n    g(/*here*/hp.name)", ""),
        ("let hp = Hp::default();\n    g(/*here*/hp.clip.unwrap_or(4))", 4),
        ("let hp = Hp::default();\n    g(/*here*/hp.train)", False),
        ("let hp = Hp { layers: 6, ..Default::default() };\n    g(/*here*/hp.layers)", 6),
        ("let hp = Hp { layers: 6, ..Default::default() };\n    g(/*here*/hp.dropout)", 0.0),
        # a type Rust's default needs code for: not known; no derive: not known
        ("let hp = Hp::default();\n    g(/*here*/hp.sizes)", None),
        ("let p = Plain::default();\n    g(/*here*/p.dropout)", None),
        # a changed field, and the crate's own `default` (an inherent one wins)
        ("let mut hp = Hp::default();\n    hp.layers = n;\n    g(/*here*/hp.layers)", None),
        ("let m = Manual::default();\n    g(/*here*/m.dropout)", 0.5),
    ],
)
def test_a_derived_default_gives_rust_s_defaults(body: str, value: object) -> None:
    assert value_at(f"{DERIVED}\nfn f(n: usize) {{\n    {body};\n}}\n") == value

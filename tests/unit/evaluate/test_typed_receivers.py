"""evaluate: values whose type the code declares. A method called on a value whose declared type
(a parameter's, a `let x: T`'s, a field's, `&`/`&mut` and generics stripped) names a struct or
enum of the crate is that type's method, evaluated with the call's arguments; a field read
through such a value has the field's declared type, so a `Tensor<B, 3>` field is a tensor of
rank 3 whose dims are known at run time only."""

from __future__ import annotations

import pytest
from evaluate_helpers import dims_at, value_at

from panic_lens import evaluate
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import walk

HEAD = """use burn::prelude::*;
pub struct Classifier<B: Backend> {
    pub scale: usize,
    pub inner: Other<B>,
}
impl<B: Backend> Classifier<B> {
    pub fn width(&self) -> usize { 12 }
    pub fn forward(&self, x: Tensor<B, 3>) -> Tensor<B, 2> { x.flatten(1, 2) }
    pub fn twice(&self, n: usize) -> usize { n * 2 }
}
pub struct Other<B: Backend> { pub frames: Tensor<B, 3>, pub count: usize }
impl<B: Backend> Other<B> {
    pub fn width(&self) -> usize { 5 }
}
pub struct Holder<B: Backend> { pub model: Classifier<B> }
pub trait Wide { fn width(&self) -> usize; }
"""


def value(body: str, params: str = "", items: str = "") -> object:
    return value_at(f"{HEAD}{items}\nfn f<B: Backend>({params}) {{ {body} }}")


@pytest.mark.parametrize(
    ("params", "body", "expected"),
    [
        ("m: &Classifier<B>", "let w = /*here*/ m.width();", 12),
        ("m: &mut Classifier<B>", "let w = /*here*/ m.width();", 12),
        ("m: Classifier<B>", "let w = /*here*/ m.twice(21);", 42),
        ("m: &Other<B>", "let w = /*here*/ m.width();", 5),  # the declared type's method
        ("", "let m: Classifier<B> = make(); let w = /*here*/ m.width();", 12),
        ("h: &Holder<B>", "let w = /*here*/ h.model.width();", 12),  # a field's declared type
        ("c: &Classifier<B>", "let w = /*here*/ c.inner.width();", 5),
        ("h: &Holder<B>", "let w = /*here*/ (&h.model).width();", 12),
    ],
)
def test_a_method_of_the_declared_type_is_followed(params: str, body: str, expected: int) -> None:
    assert value(body, params) == expected


@pytest.mark.parametrize(
    ("params", "body", "items"),
    [
        # a type that has no such method, though another type of the crate has one
        ("h: &Holder<B>", "let w = /*here*/ h.width();", ""),
        # a trait object, an `impl Trait`, a generic: which method is not known
        ("m: &dyn Wide", "let w = /*here*/ m.width();", ""),
        ("m: impl Wide", "let w = /*here*/ m.width();", ""),
        ("m: &M", "let w = /*here*/ m.width();",
         "struct M;\nimpl M { fn width(&self) -> usize { 3 } }"),
        # a struct of another crate, though the crate has one of that name
        ("m: &other::Classifier<B>", "let w = /*here*/ m.width();", ""),
        # no declared type: not guessed from the name
        ("", "let m = make(); let w = /*here*/ m.width();", ""),
        # an inherent and a trait method of the same name: not guessed
        ("m: &Classifier<B>", "let w = /*here*/ m.width();",
         "impl<B: Backend> Wide for Classifier<B> { fn width(&self) -> usize { 7 } }"),
    ],
)  # fmt: skip
def test_a_method_that_cannot_be_resolved_is_unknown(params: str, body: str, items: str) -> None:
    src = f"{HEAD}{items}\nfn f<B: Backend, M: Module<B>>({params}) {{ {body} }}"
    assert value_at(src) is None


def test_a_generic_shadows_a_struct_of_the_same_name() -> None:
    src = f"{HEAD}\nfn f<Classifier: Wide>(m: &Classifier) {{ let w = /*here*/ m.width(); }}"
    assert value_at(src) is None


def test_a_trait_impls_method_is_the_types_when_it_is_the_only_one() -> None:
    items = "struct Plain;\nimpl Wide for Plain { fn width(&self) -> usize { 7 } }"
    assert value("let w = /*here*/ p.width();", "p: &Plain", items) == 7


def test_a_method_on_self_typed_parameter() -> None:
    src = HEAD + (
        "impl<B: Backend> Other<B> {\n"
        "    fn sum(&self, other: &Self) -> usize { /*here*/ other.width() }\n}"
    )
    assert value_at(src) == 5


def test_the_shape_a_method_of_the_declared_type_returns() -> None:
    body = "let y = /*here*/ m.forward(Tensor::<B, 3>::zeros([2, 3, 4], d));"
    src = f"{HEAD}\nfn f<B: Backend>(m: &Classifier<B>, d: &B::Device) {{ {body} }}"
    assert dims_at(src) == (2, 12)
    # an argument known by its rank only: its dims, as far as the callee's ops keep them
    body = "let y = /*here*/ m.forward(t);"
    src = f"{HEAD}\nfn f<B: Backend>(m: &Classifier<B>, t: Tensor<B, 3>) {{ {body} }}"
    assert dims_at(src) == ("t.dims[0]", None)


def test_a_self_field_typed_by_a_struct_of_the_crate() -> None:
    src = HEAD + (
        "impl<B: Backend> Holder<B> {\n"
        "    fn g(&self, d: &B::Device) -> Tensor<B, 2> {\n"
        "        /*here*/ self.model.forward(Tensor::<B, 3>::zeros([5, 6, 7], d))\n    }\n}"
    )
    assert dims_at(src) == (5, 42)


@pytest.mark.parametrize(
    ("params", "body", "dims"),
    [
        ("b: Other<B>", "let y = /*here*/ b.frames.clone();",
         ("b.frames.dims[0]", "b.frames.dims[1]", "b.frames.dims[2]")),
        ("b: &Other<B>", "let y = /*here*/ b.frames.clone().sum_dim(1);",
         ("b.frames.dims[0]", 1, "b.frames.dims[2]")),
        ("c: &Classifier<B>", "let y = /*here*/ c.inner.frames.clone();",
         ("c.inner.frames.dims[0]", "c.inner.frames.dims[1]", "c.inner.frames.dims[2]")),
        ("", "let b: Other<B> = make(); let y = /*here*/ b.frames;",
         ("b.frames.dims[0]", "b.frames.dims[1]", "b.frames.dims[2]")),
        # not a tensor, a struct of another crate, no declared type: no shape
        ("b: &Other<B>", "let y = /*here*/ b.count;", None),
        ("b: &other::Other<B>", "let y = /*here*/ b.frames;", None),
        ("", "let b = make(); let y = /*here*/ b.frames;", None),
        ("w: &Wrap<Tensor<B, 3>>", "let y = /*here*/ w.t;", None),  # a generic field
    ],
)  # fmt: skip
def test_a_field_has_its_declared_rank(params: str, body: str, dims: object) -> None:
    items = "pub struct Wrap<T> { pub t: T }"
    assert dims_at(f"{HEAD}{items}\nfn f<B: Backend>({params}) {{ {body} }}") == dims


def test_a_self_field_has_its_declared_rank() -> None:
    # a pub field: not pinned down by the literals, but its type is declared
    src = HEAD + (
        "impl<B: Backend> Other<B> {\n"
        "    fn g(&self) -> Tensor<B, 3> { /*here*/ self.frames.clone() }\n}"
    )
    assert dims_at(src) == ("self.frames.dims[0]", "self.frames.dims[1]", "self.frames.dims[2]")


def _shapes(src: str) -> list[object]:
    facts = FileFacts.build(src.encode())
    marks = [i for i in range(len(facts.src)) if facts.src.startswith(b"/*here*/", i)]
    out = []
    for mark in marks:
        at = mark + len(b"/*here*/")
        node = next(n for n in walk(facts.tree.root_node) if n.start_byte >= at and n.is_named)
        found = evaluate.shape_of(node, facts)
        out.append(None if found is None else found.dims)
    return out


def test_a_fields_dims_are_the_same_wherever_it_is_read() -> None:
    body = "let a = /*here*/ b.frames.clone(); let c = /*here*/ b.frames.clone();"
    first, second = _shapes(f"{HEAD}\nfn f<B: Backend>(b: &Other<B>) {{ {body} }}")
    assert first is not None and first == second
    # a field assigned somewhere: each read is its own
    body = "let a = /*here*/ b.frames.clone(); b.frames = x; let c = /*here*/ b.frames.clone();"
    src = f"{HEAD}\nfn f<B: Backend>(mut b: Other<B>, x: Tensor<B, 3>) {{ {body} }}"
    first, second = _shapes(src)
    assert first is not None and second is not None
    assert len(first) == len(second) == 3 and first != second


BUILT = """use burn::prelude::*;
#[derive(Config, Debug)]
pub struct NetConfig {
    pub latent: usize,
    #[config(default = 28)]
    pub side: usize,
}
pub struct Net { latent: usize, side: usize }
impl NetConfig {
    pub fn init(&self, _d: &Device) -> Net { Net { latent: self.latent, side: self.side } }
}
impl Net {
    pub fn decode(&self, z: Tensor<2>) -> Tensor<4> {
        let [batch, _] = z.dims();
        Tensor::zeros([batch, 1, self.side, self.side], &z.device())
    }
    pub fn width(&self) -> usize { self.latent * 2 }
    pub fn square(side: usize) -> Self { Self { latent: side, side } }
}
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # a value built by a config's init: its type is what init declares it returns, its
        # fields what the struct literal init returns sets
        ("let net = NetConfig::new(20).init(d); let y = /*here*/ net.width();", 40),
        ("let net = NetConfig::new(20).with_side(32).init(d); let y = /*here*/ net.width();", 40),
        ("let y = /*here*/ NetConfig::new(7).init(d).width();", 14),
        ("let net = Net { latent: 3, side: 1 }; let y = /*here*/ net.width();", 3 * 2),
        ("let net = Net::square(5); let y = /*here*/ net.width();", 5 * 2),  # `Self { .. }`
        # unknown: the config's width at run time, a changed `let mut`
        ("let net = NetConfig::new(n).init(d); let y = /*here*/ net.width();", None),
        ("let mut net = Net { latent: 3, side: 1 }; net.latent = n; "
         "let y = /*here*/ net.width();", None),
    ],
)  # fmt: skip
def test_a_method_of_a_value_built_in_the_function(body: str, expected: object) -> None:
    import panic_lens.rules.language.own_configs  # noqa: F401  (the configs' derive)

    src = f"{BUILT}fn f(d: &Device, n: usize) {{ {body} }}"
    assert value_at(src) == expected


def test_the_shape_a_method_of_a_built_value_returns() -> None:
    import panic_lens.rules.language.own_configs  # noqa: F401

    body = (
        "let net = NetConfig::new(20).init(d); "
        "let z = Tensor::<2>::zeros([8, 20], d); let y = /*here*/ net.decode(z);"
    )
    src = f"{BUILT}fn f(d: &Device, n: usize) {{ {body} }}"
    assert dims_at(src) == (8, 1, 28, 28)
    assert dims_at(src.replace("NetConfig::new(20)", "NetConfig::new(20).with_side(32)")) == (
        8,
        1,
        32,
        32,
    )


GUIDE = """use burn::prelude::*;
use burn::nn::{Linear, LinearConfig};
#[derive(Config, Debug)]
pub struct HeadConfig {
    pub hidden: usize,
    pub classes: usize,
}
#[derive(Module, Debug)]
pub struct Head<B: Backend> {
    linear: Linear<B>,
}
impl HeadConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Head<B> {
        Head { linear: LinearConfig::new(self.hidden, self.classes).init(device) }
    }
}
impl<B: Backend> Head<B> {
    pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        self.linear.forward(x)
    }
}
"""


def test_a_module_field_built_from_the_callers_config() -> None:
    """`self.linear` of a value an `init` built: the Linear's config is read in the frame of
    that init (`HeadConfig::new(64, 10)`), so the forward's output width is known."""
    from panic_lens.rules.language import config_values, own_configs  # noqa: F401  (register)

    body = (
        "let head = HeadConfig::new(64, CLASSES).init::<B>(d); "
        "let x = Tensor::<B, 2>::zeros([4, 64], d); let y = /*here*/ head.forward(x);"
    )
    src = f"{GUIDE}fn f<B: Backend>(d: &B::Device, n: usize) {{ {body} }}"
    assert dims_at(src.replace("CLASSES", "10")) == (4, 10)
    assert dims_at(src.replace("CLASSES", "n")) == (4, None)

"""evaluate: tensor shapes through constructors, locals, declared types (dims as `Sym`s of
their binding), burn's ops (the table), operators and the crate's own functions; rules read
them as `rank`, `dim` (the known dims) and, when all are known, `dims` and `numel`."""

from __future__ import annotations

import pytest
from evaluate_helpers import dims_at, marked

from panic_lens import evaluate

HEAD = "use burn::prelude::*;\nuse burn::tensor::activation::relu;\n"


def at(body: str, items: str = "") -> tuple[object, ...] | None:
    return dims_at(f"{HEAD}{items}\nfn f(d: &Device, n: usize, x: Tensor<B, 3>) {{ {body} }}")


@pytest.mark.parametrize(
    ("body", "dims"),
    [
        ("let t = /*here*/ Tensor::<B, 2>::zeros([4, 4096], d);", (4, 4096)),
        ("let t = /*here*/ Tensor::<B, 2>::ones([n, 5_000], d);", (None, 5000)),
        ("let t = /*here*/ Tensor::<B, 2>::full([2, W], 0, d);", (2, 4100)),
        ("let t = /*here*/ Tensor::<B, 2>::empty(Shape::new([3, 64]), d);", (3, 64)),
        ("let t = /*here*/ Tensor::<B, 2>::from_data([[1, 2, 3], [4, 5, 6]], d);", (2, 3)),
        ("let t = /*here*/ Tensor::<B, 2>::from_data([[0i64; 4096]; 2], d);", (2, 4096)),
        ("let t = /*here*/ Tensor::<B, 1>::from_data(TensorData::new(v, [W]), d);", (4100,)),
        ("let s = [2, 4096]; let t = /*here*/ Tensor::<B, 2>::zeros(s, d);", (2, 4096)),
        # burn's Bool masks (bool.rs): the shape their first argument gives
        ("let t = /*here*/ Tensor::<B, 2, Bool>::tril_mask([64, 64], 0, d);", (64, 64)),
        ("let t = /*here*/ Tensor::<B, 3, Bool>::diag_mask([2, 8, 8], 1, d);", (2, 8, 8)),
        ("let t = /*here*/ Tensor::<B, 2>::zeros(s, d);", (None, None)),  # the turbofish rank
        # through burn's ops
        ("let t = Tensor::<B, 3>::zeros([50, 4, 28], d); let y = /*here*/ log_softmax(t, 2);",
         (50, 4, 28)),
        ("let t = Tensor::<B, 3>::zeros([50, 4, 28], d); let y = /*here*/ relu(t) * 2.0;",
         (50, 4, 28)),
        ("let t = Tensor::<B, 3>::zeros([50, 4, 28], d); let y = /*here*/ t.swap_dims(0, 2);",
         (28, 4, 50)),
        ("let t = Tensor::<B, 3>::zeros([50, 4, 28], d); let y = /*here*/ t.flatten::<2>(0, 1);",
         (200, 28)),
        ("let t = Tensor::<B, 3>::zeros([50, 4, 28], d); let y = /*here*/ t.reshape([10, -1]);",
         (10, 560)),
        ("let t = Tensor::<B, 2>::zeros([5000], d).unsqueeze_dim::<2>(1); let y = /*here*/ t;",
         (5000, 1)),
        ("let t = Tensor::<B, 2>::zeros([2, 3], d); let y = /*here*/ t.clone() + t.exp();",
         (2, 3)),
        # a parameter's dims: the same run-time values wherever it is read
        ("let y = /*here*/ x.clone();", ("x.dims[0]", "x.dims[1]", "x.dims[2]")),
        ("let y = /*here*/ x.sum_dim(1);", ("x.dims[0]", 1, "x.dims[2]")),
        ("let y = /*here*/ Tensor::cat(vec![x.clone(), x.clone()], 1);",
         ("x.dims[0]", None, "x.dims[2]")),
        # the crate's own helper, called with a known value
        ("let y = /*here*/ make(7, d);",
         (7, 3)),
        # a piece of what chunk / split / split_with_sizes return, by index
        ("let t = Tensor::<B, 2>::zeros([8, 40], d); let h = t.chunk(2, 1); "
         "let y = /*here*/ h[1].clone();", (8, 20)),
        ("let t = Tensor::<B, 2>::zeros([8, 40], d); "
         "let y = /*here*/ t.split_with_sizes(vec![10, 30], 1)[1];", (8, 30)),
        ("let t = Tensor::<B, 2>::zeros([9, 4], d); let y = /*here*/ t.split(4, 0)[2];", (1, 4)),
    ],
)  # fmt: skip
def test_shapes(body: str, dims: tuple[object, ...]) -> None:
    items = (
        "const W: usize = 4100;\n"
        "fn make(k: usize, d: &Device) -> Tensor<B, 2> { Tensor::zeros([k, 3], d) }\n"
        "fn log_softmax(t: Tensor<B, 3>, dim: usize) -> Tensor<B, 3> "
        "{ burn::tensor::activation::log_softmax(t, dim) }"
    )
    assert at(body, items) == dims


def test_an_interpolate_modules_output_size() -> None:
    """Its config's `scale_factor` is a known None (the module layer's configs are registered
    by the rule language)."""
    import panic_lens.rules.language.config_values  # noqa: F401

    body = (
        "let t = Tensor::<B, 4>::zeros([1, 16, 31, 31], d); let up = burn::nn::interpolate::"
        "Interpolate2dConfig::new().with_output_size(Some([64, 64])).init(); "
        "let y = /*here*/ up.forward(t);"
    )
    assert at(body) == (1, 16, 64, 64)
    assert at(body.replace("Some([64, 64])", "size")) == (1, 16, None, None)


@pytest.mark.parametrize(
    "body",
    [
        "let t = /*here*/ batch.targets;",
        "let t = /*here*/ make_targets(4096);",
        "let t = /*here*/ Tensor::<B, 1>::zeros([5], d).unsqueeze_dim::<2>(k);",
        "let mut t = Tensor::<B, 1>::zeros([5], d); if n > 1 { t = t.reshape([1, 5]); } "
        "let y = /*here*/ t;",
        # a piece past the end, a piece of a changed `let mut`, an index known at run time
        "let t = Tensor::<B, 2>::zeros([8, 40], d); let h = t.chunk(2, 1); let y = /*here*/ h[2];",
        "let t = Tensor::<B, 2>::zeros([8, 40], d); let mut h = t.chunk(2, 1); "
        "h.reverse(); let y = /*here*/ h[0];",
        "let t = Tensor::<B, 2>::zeros([8, 40], d); let h = t.chunk(2, 1); let y = /*here*/ h[n];",
    ],
)
def test_unknown_shapes(body: str) -> None:
    assert at(body) in (None, (None, None))


def test_the_rule_value_of_a_partial_shape() -> None:
    """`dim` holds the known dims by index (and negative index); `dims`/`numel` only when all
    are known; a Sym dim is absent (unknown)."""
    src = f"{HEAD}fn f(d: &Device, x: Tensor<B, 2>) {{ let y = /*here*/ x.unsqueeze_dim::<3>(2); }}"
    facts, node = marked(src)
    found = evaluate.tensor_of(node, facts)
    assert found is not None
    assert found.value == {"rank": 3, "dim": {2: 1, -1: 1}}


def test_the_explanation_of_a_shape() -> None:
    src = (
        f"{HEAD}fn f(d: &Device) {{\n    let t = Tensor::<B, 3>::zeros([50, 4, 28], d);\n"
        "    let y = /*here*/ burn::tensor::activation::log_softmax(t, 2);\n}"
    )
    facts, node = marked(src)
    found = evaluate.tensor_of(node, facts)
    assert found is not None and found.value["dims"] == [50, 4, 28]
    assert found.steps[0] == "Tensor::zeros([50, 4, 28]) at line 4"
    assert len(found.steps) >= 2 and "log_softmax" in found.steps[-1]


def test_a_crate_function_s_tensor_has_the_rank_it_declares() -> None:
    """What a function of the crate returns, when it is not followed, is a tensor of the rank
    its signature writes (`-> Tensor<2>`), its dims unknown; a rank a generic parameter gives
    (`-> Tensor<B, D>`) is only what the call's values say."""
    items = (
        "fn pooled(x: Tensor<B, 3>, k: usize) -> Tensor<B, 2> { x.sum_dim(k).squeeze_dim(k) }\n"
        "fn any<const D: usize>(x: Tensor<B, D>) -> Tensor<B, D> { x }\n"
        "fn unknown<const D: usize>(v: Vec<f32>) -> Tensor<B, D> { make(v) }\n"
    )
    assert at("let y = /*here*/ pooled(x, n);", items) == (None, None)
    assert at("let y = /*here*/ any(x);", items) == ("x.dims[0]", "x.dims[1]", "x.dims[2]")
    assert at("let y = /*here*/ unknown(vec![1.0]);", items) is None


def test_a_module_known_by_its_declared_type() -> None:
    """A burn module the code types (`norm: &LayerNorm`, a loop's variable over a
    `Vec<LayerNorm>`) whose output needs no config keeps the shape; one that needs its config
    (`Linear`) gives only what needs none; the crate's own type of the same name is not
    read. (The layer that reads burn's configs registers the module reader.)"""
    from panic_lens.rules.language import config_values  # noqa: F401

    items = "use burn::nn::{LayerNorm, Relu, Linear};\n"
    params = "norm: &LayerNorm, act: Relu, lin: &Linear, norms: Vec<LayerNorm>, lins: &[Linear]"
    head = "let t = Tensor::<3>::zeros([2, 10, 64], d); "

    def at_(body: str, more: str = "") -> object:
        return dims_at(f"{HEAD}{items}{more}\nfn f(d: &Device, {params}) {{ {head}{body} }}")

    assert at_("let y = /*here*/ norm.forward(t);") == (2, 10, 64)
    assert at_("let y = /*here*/ act.forward(t);") == (2, 10, 64)
    assert at_("for n in norms.iter() { let y = /*here*/ n.forward(t.clone()); }") == (2, 10, 64)
    assert at_("let y = /*here*/ lin.forward(t);") == (2, 10, None)  # d_output: its config's
    assert at_("for n in lins.iter() { let y = /*here*/ n.forward(t.clone()); }") == (2, 10, None)
    own = "mod own { pub struct LayerNorm; }\n"
    assert dims_at(f"{HEAD}{own}\nfn f(d: &Device, norm: &own::LayerNorm) {{ {head}"
                   "let y = /*here*/ norm.forward(t); }}") is None  # fmt: skip

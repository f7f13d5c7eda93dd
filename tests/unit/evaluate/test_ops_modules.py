"""burn's ops table, its module forwards and the table itself: each forward case is read from
burn's own docs or tests (v0.22.0-pre.2), cited above it (paths under burn's `crates/`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from burn_tree import BURN

from panic_lens.evaluate.ops import (
    OpsTableError,
    load_table,
    module_forward_shape,
    module_param_shape,
    table,
)
from panic_lens.evaluate.shapes import Shape, Span, Sym

B = Sym("param:x#0", "x.dims[0]")
T = Sym("param:x#2", "x.dims[2]")
NN = "burn-nn/src/modules"
MODULE_TESTS = "burn-backend-tests/tests/tensor/float/module"


def S(*dims: object) -> Shape:  # reads like burn's Shape::new
    return Shape(tuple(dims), ("input",))  # type: ignore[arg-type]


def conv(ch: list[int], k: list[int], pad: object = "Valid", s: int = 1, **more: object) -> dict:
    """A Conv{1,2,3}dConfig's fields (Conv1d: give channels_in/channels_out in `more`)."""
    n = len(k)
    return {"channels": ch, "kernel_size": k, "stride": [s] * n, "dilation": [1] * n,
            "groups": 1, "padding": pad, **more}  # fmt: skip


def conv1d(c_in: int, c_out: int, k: int, pad: object) -> dict:
    return {"channels_in": c_in, "channels_out": c_out, "kernel_size": k, "stride": 1,
            "dilation": 1, "groups": 1, "padding": pad}  # fmt: skip


def tconv(ch: list[int], k: list[int], s: int, p: int, po: int) -> dict:
    n = len(k)
    return {"channels": ch, "kernel_size": k, "stride": [s] * n, "dilation": [1] * n,
            "groups": 1, "padding": [p] * n, "padding_out": [po] * n}  # fmt: skip


def max2d(k: int, s: int, pad: object, ceil: bool = False) -> dict:
    return {"kernel_size": [k, k], "strides": [s, s], "padding": pad, "dilation": [1, 1],
            "ceil_mode": ceil}  # fmt: skip


CASES = [
    # {NN}/conv/conv2d.rs `forward` doc: Conv2dConfig::new([3, 8], [3, 3]),
    # [1, 3, 28, 28] -> [1, 8, 26, 26]
    ("burn::nn::conv::Conv2d", conv([3, 8], [3, 3]), S(1, 3, 28, 28), (1, 8, 26, 26)),
    # conv2d.rs same_with_even_kernel_uses_asymmetric_padding: [1, 4, 5, 5] stays 5 x 5
    ("burn::nn::conv::Conv2d", conv([4, 4], [2, 2], "PaddingConfig2d::Same"), S(1, 4, 5, 5),
     (1, 4, 5, 5)),
    # conv2d.rs asymmetric_padding_forward: Explicit(1, 2, 3, 4), [1, 2, 4, 5] -> [1, 3, 6, 9]
    ("burn::nn::conv::Conv2d", conv([2, 3], [3, 3], ("Explicit", 1, 2, 3, 4)), S(1, 2, 4, 5),
     (1, 3, 6, 9)),
    # conv2d.rs symmetric_explicit_padding_forward: Explicit(2, 2, 2, 2) -> [1, 3, 6, 7]
    ("burn::nn::conv::Conv2d", conv([2, 3], [3, 3], ("Explicit", (2, 2, 2, 2))), S(1, 2, 4, 5),
     (1, 3, 6, 7)),
    # "Same" with stride 1 keeps a run-time dim, and the batch is copied
    ("burn::nn::conv::Conv2d", conv([3, 16], [3, 3], "Same"), S(B, 3, T, 32), (B, 16, T, 32)),
    # a stride that is not known: the spatial dims are not
    ("burn::nn::conv::Conv2d", {**conv([3, 16], [3, 3]), "stride": None}, S(B, 3, 32, 32),
     (B, 16, None, None)),
    # {NN}/conv/conv1d.rs same_with_even_kernel_uses_asymmetric_padding,
    # asymmetric_padding_forward, symmetric_explicit_padding_forward
    ("burn::nn::conv::Conv1d", conv1d(4, 4, 2, "Same"), S(1, 4, 5), (1, 4, 5)),
    ("burn::nn::conv::Conv1d", conv1d(2, 3, 3, ("Explicit", 1, 2)), S(1, 2, 4), (1, 3, 5)),
    ("burn::nn::conv::Conv1d", conv1d(2, 3, 3, ("Explicit", 2, 2)), S(1, 2, 4), (1, 3, 6)),
    # {MODULE_TESTS}/conv3d.rs test_conv3d_simple: k3 p1 s1 on 4^3 -> 4^3
    ("burn::nn::conv::Conv3d", conv([2, 2], [3, 3, 3], ("Explicit", 1, 1, 1)),
     S(1, 2, 4, 4, 4), (1, 2, 4, 4, 4)),
    # {NN}/conv/conv3d.rs same_with_even_kernel_is_invalid: burn panics
    ("burn::nn::conv::Conv3d", conv([2, 2], [2, 2, 2], "Same"), S(1, 2, 4, 4, 4), None),
    # {MODULE_TESTS}/conv_transpose2d.rs test_conv_transpose2d_simple_1 (k3 p1: 2x2 -> 2x2),
    # _stride_2 (k2 s2: 2x2 -> 4x4), _stride2_out_padding (k3 p1 po1 s2: 4x4 -> 8x8)
    ("burn::nn::conv::ConvTranspose2d", tconv([1, 1], [3, 3], 1, 1, 0), S(1, 1, 2, 2),
     (1, 1, 2, 2)),
    ("burn::nn::conv::ConvTranspose2d", tconv([1, 1], [2, 2], 2, 0, 0), S(1, 1, 2, 2),
     (1, 1, 4, 4)),
    ("burn::nn::conv::ConvTranspose2d", tconv([2, 2], [3, 3], 2, 1, 1), S(B, 2, 4, 4),
     (B, 2, 8, 8)),
    # {NN}/pool/max_pool2d.rs same_with_even_kernel_uses_asymmetric_padding,
    # asymmetric_padding_forward
    ("burn::nn::pool::MaxPool2d", max2d(2, 1, "Same"), S(1, 2, 5, 5), (1, 2, 5, 5)),
    ("burn::nn::pool::MaxPool2d", max2d(3, 1, ("Explicit", 1, 2, 3, 4)), S(1, 2, 4, 5),
     (1, 2, 6, 9)),
    # {MODULE_TESTS}/maxpool2d.rs test_max_pool2d_ceil_mode: 6x6, k3 s2: floor 2x2, ceil 3x3
    ("burn::nn::pool::MaxPool2d", max2d(3, 2, "Valid", ceil=True), S(1, 1, 6, 6), (1, 1, 3, 3)),
    ("burn::nn::pool::MaxPool2d", max2d(3, 2, "Valid"), S(1, 1, 6, 6), (1, 1, 2, 2)),
    # {NN}/pool/avg_pool1d.rs asymmetric_padding_forward: (1, 2), 4 -> 5
    ("burn::nn::pool::AvgPool1d", {"kernel_size": 3, "stride": 1,
     "padding": ("Explicit", 1, 2), "ceil_mode": False}, S(1, 2, 4), (1, 2, 5)),
    # {NN}/pool/adaptive_avg_pool3d.rs forward: [1, 2, 4, 4, 4] -> [1, 2, 2, 2, 2]
    ("burn::nn::pool::AdaptiveAvgPool3d", {"output_size": [2, 2, 2]}, S(1, 2, 4, 4, 4),
     (1, 2, 2, 2, 2)),
    # {NN}/interpolate/interpolate1d.rs test_module (output_size 8), test_calculate_output_size
    ("burn::nn::interpolate::Interpolate1d", {"output_size": 8, "scale_factor": "None"},
     S(2, 3, 4), (2, 3, 8)),
    ("burn::nn::interpolate::Interpolate1d", {"output_size": "None", "scale_factor": 1.5},
     S(1, 1, 4), (1, 1, 6)),
    # interpolate2d.rs test_calculate_output_size: [4, 4] scaled [2.0, 1.5] -> [8, 6]
    ("burn::nn::interpolate::Interpolate2d", {"output_size": "None", "scale_factor": [2.0, 1.5]},
     S(1, 1, 4, 4), (1, 1, 8, 6)),
    # interpolate2d.rs test_missing_params: neither is Some -> burn panics
    ("burn::nn::interpolate::Interpolate2d", {"output_size": "None", "scale_factor": "None"},
     S(1, 1, 4, 4), None),
    # {NN}/linear.rs `forward`: [..., d_input] -> [..., d_output]
    ("burn::nn::Linear", {"d_input": 64, "d_output": 10}, S(B, 7, 64), (B, 7, 10)),
    ("burn::nn::Linear", {"d_input": 64}, S(B, 64), (B, None)),
    # {NN}/embedding.rs `forward`: [batch, seq] -> [batch, seq, d_model]
    ("burn::nn::Embedding", {"n_embedding": 100, "d_model": 32}, S(B, 12), (B, 12, 32)),
    # {NN}/norm/layer.rs, batch.rs, dropout.rs, burn-nn/src/activation/relu.rs: D -> D
    ("burn::nn::LayerNorm", {"d_model": 28}, S(B, 4, 28), (B, 4, 28)),
    ("burn::nn::BatchNorm", {"num_features": 3}, S(B, 3, 8, 8), (B, 3, 8, 8)),
    ("burn::nn::Dropout", {"prob": 0.1}, S(B, 3), (B, 3)),
    ("burn::nn::Relu", {}, S(B, 3), (B, 3)),
    # burn-nn/src/activation/glu.rs: `GLU::new(dim)` halves the dim
    ("burn::nn::GLU", {"dim": -1}, S(B, 8), (B, 4)),
    # {NN}/pixel_shuffle.rs pixel_shuffle_known_values: (1, 4, 2, 2) -> (1, 1, 4, 4); the
    # `forward` asserts the channels divide by upscale_factor^2
    ("burn::nn::PixelShuffle", {"upscale_factor": 2}, S(1, 4, 2, 2), (1, 1, 4, 4)),
    ("burn::nn::PixelUnshuffle", {"downscale_factor": 2}, S(B, 1, 4, 4), (B, 4, 2, 2)),
    ("burn::nn::PixelShuffle", {"upscale_factor": 2}, S(1, 3, 2, 2), None),
    # {NN}/rope_encoding.rs `forward`: "the same shape as input tensor"
    ("burn::nn::RotaryEncoding", {"d_model": 64}, S(B, 8, T, 64), (B, 8, T, 64)),
    ("burn::nn::NotAModule", {}, S(B, 3), None),
]  # fmt: skip


@pytest.mark.parametrize(("path", "config", "x", "expected"), CASES)
def test_module_forward_shape(path: str, config: dict, x: Shape, expected: object) -> None:
    got = module_forward_shape(path, config, x)
    assert (None if got is None else got.dims) == expected
    if got is not None:  # the input's steps, then the forward's
        assert got.steps[0] == "input"
        assert got.steps[-1].startswith(path.rsplit("::", 1)[-1] + ".forward")


RNN_CASES = [
    # {NN}/rnn/gru.rs test_batched_forward_pass: GruConfig::new(64, 1024, true),
    # forward([8, 10, 64], None) -> [8, 10, 1024] (a tensor)
    ("burn::nn::Gru", {"d_input": 64, "d_hidden": 1024}, S(8, 10, 64), None, (8, 10, 1024)),
    # gru.rs test_bigru_batched_forward_pass: BiGru -> (output [8, 10, 2048], state)
    ("burn::nn::BiGru", {"d_input": 64, "d_hidden": 1024}, S(8, 10, 64), 0, (8, 10, 2048)),
    # {NN}/rnn/lstm/lstm_module.rs test_batched_forward_pass: (output [8, 10, 1024], state)
    ("burn::nn::Lstm", {"d_input": 64, "d_hidden": 1024}, S(8, 10, 64), 0, (8, 10, 1024)),
    ("burn::nn::Lstm", {"d_input": 64, "d_hidden": 1024}, S(1, 2, 64), 0, (1, 2, 1024)),
    # {NN}/rnn/lstm/bilstm_module.rs: both directions joined on the last dim
    ("burn::nn::BiLstm", {"d_input": 64, "d_hidden": 32}, S(B, 10, 64), 0, (B, 10, 64)),
]  # fmt: skip


@pytest.mark.parametrize(("path", "config", "x", "element", "expected"), RNN_CASES)
def test_recurrent_forwards(
    path: str, config: dict, x: Shape, element: int | None, expected: object
) -> None:
    """`forward(input, state)`: two arguments; a forward that returns (output, state) gives
    the output as its element 0 only, never as the call's own shape, and one that returns a
    tensor is no tuple."""
    got = module_forward_shape(path, config, x, 2, element)
    assert got is not None and got.dims == expected
    assert module_forward_shape(path, config, x, 1, element) is None  # the state is required
    other = 0 if element is None else None
    assert module_forward_shape(path, config, x, 2, other) is None
    assert module_forward_shape(path, config, x, 2, 1) is None  # the state is not read
    assert module_forward_shape(path, config, S(8, 64), 2, element) is None  # not batched


@pytest.mark.parametrize(
    ("path", "config", "param", "expected"),
    [
        # {NN}/embedding.rs: "weights of the module of shape `[n_embedding, d_model]`"
        ("burn::nn::Embedding", {"n_embedding": 100, "d_model": 32}, "weight", (100, 32)),
        # {NN}/linear.rs `init`: Row layout (the default) `[d_input, d_output]`; Col is not read
        ("burn::nn::Linear", {"d_input": 8, "d_output": 4, "layout": "Row"}, "weight", (8, 4)),
        ("burn::nn::Linear", {"d_input": 8, "d_output": 4, "layout": "Col"}, "weight", None),
        ("burn::nn::Linear", {"d_input": 8, "d_output": 4}, "weight", None),
        ("burn::nn::Linear", {"d_input": 8, "d_output": 4, "layout": "Row"}, "bias", None),
        # {NN}/norm/layer.rs, rms.rs, batch.rs `init`: gamma (and batch's beta) `[d_model]`
        ("burn::nn::LayerNorm", {"d_model": 28}, "gamma", (28,)),
        ("burn::nn::RmsNorm", {"d_model": 28}, "gamma", (28,)),
        ("burn::nn::BatchNorm", {"num_features": 3}, "beta", (3,)),
        ("burn::nn::LayerNorm", {}, "gamma", None),
    ],
)  # fmt: skip
def test_module_param_shapes(path: str, config: dict, param: str, expected: object) -> None:
    got = module_param_shape(path, config, param)
    assert (None if got is None else got.dims) == expected


LOSS = "burn-nn/src/loss"


@pytest.mark.parametrize(
    ("path", "method", "x", "expected"),
    [
        # {LOSS}/mse.rs test_mse_loss: forward_no_reduction of [2, 2] logits gives
        # [[1.0, 1.0], [0.0, 4.0]]; forward with Reduction::Mean gives [1.5] (one element)
        ("burn::nn::loss::MseLoss", "forward_no_reduction", S(2, 2), (2, 2)),
        ("burn::nn::loss::MseLoss", "forward", S(2, 2), (1,)),
        # {LOSS}/huber.rs: `forward(..) -> Tensor<1>`, `forward_no_reduction(..) -> Tensor<D>`
        # of its predictions' shape (test_huber_loss compares [4] with [4])
        ("burn::nn::loss::HuberLoss", "forward_no_reduction", S(B, 4), (B, 4)),
        # {LOSS}/smooth_l1.rs: `forward` is element-wise (`-> Tensor<D>`), the reduced loss
        # is `forward_with_reduction`
        ("burn::nn::loss::SmoothL1Loss", "forward", S(3, 5), (3, 5)),
        ("burn::nn::loss::SmoothL1Loss", "forward_with_reduction", S(3, 5), (1,)),
        # {LOSS}/cross_entropy.rs: `forward(logits: Tensor<2>, targets) -> Tensor<1>` (mean)
        ("burn::nn::loss::CrossEntropyLoss", "forward", S(B, 10), (1,)),
        # a method the table does not size (cosine embedding's per-pair loss), or none
        ("burn::nn::loss::CosineEmbeddingLoss", "forward_no_reduction", S(B, 8), None),
        ("burn::nn::loss::CrossEntropyLoss", "forward_no_reduction", S(B, 10), None),
        ("burn::nn::Linear", "forward_no_reduction", S(B, 10), None),
    ],
)  # fmt: skip
def test_loss_methods(path: str, method: str, x: Shape, expected: object) -> None:
    got = module_forward_shape(path, {}, x, 2, None, method)
    assert (None if got is None else got.dims) == expected


def test_table_says_its_burn_version_and_covers_the_issue() -> None:
    t = table()
    assert t.burn == "0.22.0-pre.2"
    wanted = (
        "sum mean sum_dim mean_dim max_dim argmax reshape swap_dims transpose permute flatten "
        "unsqueeze unsqueeze_dim unsqueeze_dims squeeze squeeze_dim squeeze_dims narrow slice "
        "chunk split split_with_sizes repeat repeat_dim expand matmul gather select one_hot"
    )
    assert [m for m in wanted.split() if m not in t.method] == []
    for module in ("Relu", "Gelu", "Sigmoid", "Tanh", "LeakyRelu", "Dropout", "LayerNorm",
                   "RmsNorm", "BatchNorm", "GroupNorm", "Linear", "Embedding"):  # fmt: skip
        assert f"burn::nn::{module}" in t.module
    for entry in (e for s in (t.method, t.function, t.module) for e in s.values()):
        assert str(entry["src"]).startswith("crates/burn-")


def test_module_config_fields_match_the_configs_index() -> None:
    data = Path(__file__).parents[3] / "server" / "panic_lens" / "rules" / "data"
    configs = json.loads((data / "burn-0.22.0-pre.2.json").read_text())["configs"]
    keys = ("out", "channels_out", "stride", "dilation", "dim_field", "factor")
    for path, entry in table().module.items():
        fields = {str(v).split(".")[0] for k, v in entry.items() if k in keys}
        fields |= {str(f) for sizes in entry.get("params", {}).values() for f in sizes}
        fields |= set(entry.get("params_when", {}))
        if fields and f"{path}Config" in configs:
            names = {f["name"] for f in configs[f"{path}Config"]["fields"]}
            assert fields <= names, path


def test_a_malformed_table_is_named_with_its_entry(tmp_path: Path) -> None:
    bad = tmp_path / "ops.toml"
    bad.write_text('burn = "0"\nformat = 1\n[method]\nexp = { kind = "guess", src = "x" }\n')
    with pytest.raises(OpsTableError, match=r"ops\.toml.*\[method\] 'exp'"):
        load_table(bad)
    bad.write_text('burn = "0"\nformat = 1\n[method]\nexp = { kind = "same" }\n')
    with pytest.raises(OpsTableError, match="src"):
        load_table(bad)
    bad.write_text("burn = [")
    with pytest.raises(OpsTableError, match=r"ops\.toml"):
        load_table(bad)


def test_hostile_configs_never_raise() -> None:
    fields = ("kernel_size", "stride", "strides", "dilation", "padding", "padding_out",
              "channels", "channels_out", "d_output", "d_model", "output_size", "scale_factor",
              "ceil_mode", "dim", "upscale_factor", "downscale_factor")  # fmt: skip
    values: list[object] = [None, 0, -1, 10**12, 2.5, float("nan"), 1e40, -2.0, True, "Same",
                            "Nearest", B, Span(), [], [0, 0], [1, 1, 1], ("Explicit",),
                            ("Explicit", -1, 2), (2, 2, 2, 2), Shape(None)]  # fmt: skip
    inputs = [S(1, 3, 28, 28), S(B, 3, 8), S(1, 2, 4, 4, 4), Shape(None), S(B, 12), S()]
    for path in table().module:
        for value in values:
            config = dict.fromkeys(fields, value)
            for x in inputs:
                got = module_forward_shape(path, config, x)
                assert got is None or isinstance(got, Shape), (path, value, x)


@pytest.mark.skipif(not (BURN / "crates").is_dir(), reason="no burn checkout (set BURN_CHECKOUT)")
def test_every_entry_is_in_burns_source() -> None:
    """Each entry's `src` exists in burn's checkout and defines the op: a method is a public
    `fn` of `Tensor`'s API (and of its `src`), a function a `pub fn` of its file, a module a
    `pub struct` of its file."""
    api_dir = BURN / "crates" / "burn-tensor" / "src" / "tensor" / "api"
    api = "\n".join(p.read_text(encoding="utf-8") for p in sorted(api_dir.glob("*.rs")))
    missing = []
    for section in ("method", "function", "module"):
        for name, entry in getattr(table(), section).items():
            src = BURN / str(entry["src"])
            text = src.read_text(encoding="utf-8") if src.is_file() else ""
            last = name.rsplit("::", 1)[-1]
            if section == "method" and last == "clone":  # `#[derive(new, Clone, Debug)]`
                found = re.search(r"derive\([^)]*\bClone\b[^)]*\)\]\s*pub struct Tensor\b", text)
            elif section == "method":
                found = re.search(rf"fn {last}\b", api) and re.search(rf"fn {last}\b", text)
            elif section == "function":
                found = re.search(rf"pub fn {last}\b", text)
            else:
                found = re.search(rf"pub struct {last}\b", text)
            if not found:
                missing.append((section, name, entry["src"]))
    assert missing == []

"""burn's public paths: crate-root aliases, re-export rewrites, and what each glob really exports.

Every resolved name becomes one canonical path (`burn::rl::AsyncPolicy`), whichever crate root
or re-export the user wrote (`burn_rl::policy::AsyncPolicy`). Checked against burn 0.21 / 0.22.
"""

from __future__ import annotations

import re

# Where a tensor's whole shape can come from in a file (the evaluator's constructors):
# `Tensor::zeros([..], ..)` and the other constructors, `Tensor::from_data(..)` and its
# siblings, `TensorData::new`/`from`, and `.reshape([..])`. A file that writes none of these
# words has no tensor whose shape is known.
TENSOR_CONSTRUCTORS = frozenset({"zeros", "ones", "empty", "full", "random", "arange"})
TENSOR_FROM = frozenset({"from_data", "from_ints", "from_floats", "from_bool"})
SHAPE_WORDS = tuple(sorted(TENSOR_CONSTRUCTORS | TENSOR_FROM | {"TensorData", "reshape"}))
SHAPE_CALLS = TENSOR_CONSTRUCTORS | TENSOR_FROM | {"reshape"}  # those of them that are calls

# `Tensor<B, 3>`, `Tensor<3, Int>`, `burn::tensor::Tensor<B, 2, Bool>`, `&'a mut Tensor<B, 4>`
_TENSOR_TYPE = re.compile(r"(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:[\w:]*::)?Tensor\s*<(.*)>", re.S)


def tensor_type_args(type_text: str) -> list[str] | None:
    """The generic arguments of a Tensor type as written, at the top level
    (`&Tensor<B, 3, Int>` -> `["B", "3", "Int"]`); None for another type."""
    found = _TENSOR_TYPE.fullmatch(type_text.strip())
    if found is None:
        return None
    args: list[str] = []
    depth, start, inner = 0, 0, found.group(1)
    for at, ch in enumerate(inner):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(inner[start:at].strip())
            start = at + 1
    args.append(inner[start:].strip())
    return [a for a in args if a]


# burn's Tensor methods that return `Self` (`matmul(self, other: Self) -> Self`, `swap_dims`,
# `transpose`, `permute`, `narrow`, element-wise arithmetic...): a burn Tensor of the same rank
TENSOR_SELF_METHODS = frozenset(
    {"clone", "matmul", "swap_dims", "transpose", "permute", "narrow", "slice", "flip",
     "mask_fill", "mask_where", "add", "sub", "mul", "div", "add_scalar", "sub_scalar",
     "mul_scalar", "div_scalar", "exp", "log", "abs", "neg", "sqrt", "powf", "powf_scalar",
     "clamp", "clamp_min", "clamp_max", "detach", "require_grad", "to_device"}
)  # fmt: skip

# Crate roots a user can name, and the canonical prefix each stands for.
CRATE_ROOTS: dict[str, tuple[str, ...]] = {
    "burn": ("burn",),
    "burn_core": ("burn",),
    "burn_tensor": ("burn", "tensor"),
    "burn_nn": ("burn", "nn"),
    "burn_rl": ("burn", "rl"),
    "burn_router": ("burn", "router"),
    "burn_train": ("burn", "train"),
    "burn_optim": ("burn", "optim"),
    "burn_autodiff": ("burn", "backend"),
    "burn_cubecl": ("burn_cubecl",),
}

# Re-exports: a longer internal prefix -> the public canonical prefix (longest match wins).
PREFIX_REWRITES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("burn", "rl", "policy", "async_policy"): ("burn", "rl"),
    ("burn", "rl", "policy", "base"): ("burn", "rl"),
    ("burn", "rl", "policy"): ("burn", "rl"),
    ("burn", "nn", "modules"): ("burn", "nn"),
    ("burn", "nn", "loss", "ctc"): ("burn", "nn", "loss"),
    ("burn", "router", "channel", "base"): ("burn", "router"),
    ("burn", "router", "channel"): ("burn", "router"),
    ("burn", "router", "tensor"): ("burn", "router"),
    ("burn", "tensor", "tensor"): ("burn", "tensor"),
    ("burn", "tensor", "api"): ("burn", "tensor"),
    ("burn", "tensor", "backend", "ops"): ("burn", "tensor", "ops"),
    ("burn_std", "ops"): ("burn", "tensor", "ops"),
    ("burn", "backend", "autodiff"): ("burn", "backend"),
    ("burn", "train", "learner"): ("burn", "train"),
}

# Items burn re-exports at a shorter path than where they live.
ITEM_ALIASES: dict[str, str] = {
    "burn::Tensor": "burn::tensor::Tensor",
    "burn::tensor::backend::Autodiff": "burn::backend::Autodiff",
}

_TENSOR = (
    "Tensor TensorData Shape DType Int Float Bool Device Distribution ElementConversion "
    "TensorPrimitive Element SliceArg s module ops IntDType FloatDType TensorCreationOptions"
)


def _exports(module: str, names: str) -> dict[str, str]:
    return {name: f"{module}::{name}" for name in names.split()}


# What `use <module>::*` brings in, per canonical module: name -> canonical path.
# Modules missing here (and names missing from a listed module) bring nothing we can trust.
GLOB_EXPORTS: dict[str, dict[str, str]] = {
    "burn::prelude": {
        **_exports(
            "burn::tensor",
            "Bool Device DeviceIndex DeviceKind ElementConversion Float Int Shape SliceArg "
            "Tensor TensorData ToElement s",
        ),
        "Config": "burn::config::Config",
        "Module": "burn::module::Module",
        "Backend": "burn::tensor::backend::Backend",  # 0.21 prelude
        "nn": "burn::nn",
    },
    "burn::tensor": _exports("burn::tensor", _TENSOR),
    "burn::tensor::module": _exports(
        "burn::tensor::module",
        "ctc_loss interpolate conv1d conv2d max_pool2d avg_pool2d embedding",
    ),
    "burn::tensor::ops": _exports(
        "burn::tensor::ops", "InterpolateMode InterpolateOptions ConvOptions ModuleOps"
    ),
    "burn::rl": _exports(
        "burn::rl",
        "AsyncPolicy Policy PolicyState PolicyLearner ActionContext Batchable Environment "
        "EnvironmentInit StepResult Transition TransitionBatch TransitionBuffer ToObservation "
        "ToAction RLTrainOutput SliceAccess",
    ),
    "burn::nn::loss": _exports(
        "burn::nn::loss", "CTCLoss CTCLossConfig Reduction CrossEntropyLoss MseLoss"
    ),
    "burn::nn::interpolate": _exports(
        "burn::nn::interpolate",
        "Interpolate1d Interpolate1dConfig Interpolate2d Interpolate2dConfig InterpolateMode",
    ),
    "burn::nn": _exports(
        "burn::nn",
        "Linear LinearConfig Dropout DropoutConfig interpolate loss",
    ),
    "burn::router": _exports(
        "burn::router", "RouterChannel RouterTensor RouterClient BackendRouter MultiBackendBridge"
    ),
    "burn::backend": _exports(
        "burn::backend", "Autodiff Wgpu Cuda Rocm Metal Vulkan WebGpu Cpu NdArray LibTorch Flex"
    ),
    "burn::train": _exports(
        "burn::train", "Learner LearnerBuilder TrainStep ValidStep TrainOutput SupervisedTraining"
    ),
    "burn::module": _exports("burn::module", "Module AutodiffModule Param Ignored"),
    # Enum variants (`use InterpolateMode::*;`).
    "burn::tensor::ops::InterpolateMode": _exports(
        "burn::tensor::ops::InterpolateMode", "Nearest NearestExact Bilinear Bicubic Lanczos3"
    ),
    "burn::nn::interpolate::InterpolateMode": _exports(
        "burn::nn::interpolate::InterpolateMode", "Nearest NearestExact Linear Cubic Lanczos"
    ),
    "burn::tensor::DType": _exports(
        "burn::tensor::DType",
        "F64 F32 Flex32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 Bool QFloat",
    ),
}


def canonical(segments: list[str] | tuple[str, ...]) -> str | None:
    """Map an absolute path (first segment a crate root) to its canonical burn path, else None.
    A path in another of burn's crates (`burn_dataset::InMemDataset`, `burn_std::Slice`) is
    its own name: the guards index's aliases (`rules.language.api.aliases_of`) tell which
    item of the `burn` facade it is."""
    if not segments or segments[0] not in CRATE_ROOTS:
        if len(segments) >= 2 and tuple(segments[:2]) in PREFIX_REWRITES:
            return canonical(list(PREFIX_REWRITES[tuple(segments[:2])]) + list(segments[2:]))
        if segments and segments[0].startswith("burn_") and len(segments) >= 2:
            return "::".join(segments)
        return None
    parts = list(CRATE_ROOTS[segments[0]]) + list(segments[1:])
    for size in range(min(len(parts), 4), 1, -1):
        repl = PREFIX_REWRITES.get(tuple(parts[:size]))
        if repl is not None:
            parts = list(repl) + parts[size:]
            break
    path = "::".join(parts)
    return ITEM_ALIASES.get(path, path)


def glob_exports(module: str) -> dict[str, str]:
    """Names a glob import of the canonical `module` brings into scope."""
    return GLOB_EXPORTS.get(module, {})

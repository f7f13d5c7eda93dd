"""A small burn-like tree for the deriver's tests (tests/unit/catalog/test_derive_*.py): a
config table, a channel check reached through a private helper, a module, Tensor methods and
TensorChecks; records of its panics, and what a derived rule flags."""

from __future__ import annotations

from pathlib import Path

from panic_lens.catalog.derive import Derived, NotDerived
from panic_lens.catalog.model import Knowledge, Origin, PanicSite, Record
from panic_lens.engine import analyze

TABLE = {
    "burn": "0.9.0",
    "configs": {
        "burn::nn::ConvConfig": {
            "paths": ["burn::nn::ConvConfig", "burn_nn::ConvConfig"],
            "init": "burn::nn::Conv",
            "fields": [
                {"name": "channels", "type": "[usize; 2]"},
                {"name": "kernel_size", "type": "[usize; 2]"},
                {"name": "groups", "type": "usize", "default": "1"},
                {"name": "padding", "type": "PaddingConfig2d", "default": "PaddingConfig2d::Valid"},
            ],
        },
        "burn::nn::ResizeConfig": {
            "paths": ["burn::nn::ResizeConfig"],
            "init": "burn::nn::Resize",
            "fields": [
                {"name": "size", "type": "Option<usize>", "option": True},
                {"name": "scale", "type": "Option<f32>", "option": True},
            ],
        },
    },
}

CHECKS = b"""
pub(crate) fn checks_channels_div_groups(channels_in: usize, channels_out: usize, groups: usize) {
    let in_ok = channels_in.is_multiple_of(groups);
    if !in_ok || !channels_out.is_multiple_of(groups) {
        panic!("Both channels must be divisible by the number of groups. Got \\
             channels_in={channels_in}, groups={groups}");
    }
}

pub(crate) fn check_same_padding_support(kernel_size: &[usize]) {
    for k in kernel_size.iter() {
        if k % 2 == 0 {
            unimplemented!("Same padding with an even kernel size is not supported");
        }
    }
}
"""
CONV = b"""
use super::checks;
pub struct ConvConfig;
pub struct Conv;
impl ConvConfig {
    pub fn init(&self, device: &Device) -> Conv {
        checks::checks_channels_div_groups(self.channels[0], self.channels[1], self.groups);
        if self.padding == PaddingConfig2d::Same {
            checks::check_same_padding_support(&self.kernel_size);
        }
        assert!(self.kernel_size.len() < MAX_RANK, "too many kernel dims");
        Conv
    }
}
impl Conv {
    pub fn later(&self) {
        todo!("later is not written yet");
    }
}
pub struct ResizeConfig;
pub struct Resize;
impl ResizeConfig {
    pub fn init(&self) -> Resize {
        Resize
    }
}
impl Resize {
    pub fn forward(&self, x: usize) -> usize {
        out_size(self.size, self.scale)
    }
}
fn out_size(size: Option<usize>, scale: Option<f32>) -> usize {
    match (size, scale) {
        (Some(size), None) => size,
        (None, Some(_)) => 1,
        _ => panic!("Either size or scale must be provided"),
    }
}
fn orphan(x: usize) {
    assert!(x > 1, "orphan needs more than one");
}
impl Conv {
    pub fn metrics<M: Register>(self, metrics: M) -> Self {
        metrics.register(self, "no panic: a trait's register")
    }
}
"""
TENSOR = b"""
pub struct Tensor;
impl<const D: usize> Tensor<D> {
    pub fn narrow(self, dim: usize, start: usize, length: usize) -> Self {
        check!(TensorCheck::narrow::<D>(&self, dim, start, length));
        self
    }
    pub fn into_scalar(self) -> f32 {
        check!(TensorCheck::into_scalar::<D>(&self.shape()));
        0.0
    }
    pub fn try_into_scalar(self) -> Result<f32, ()> {
        check!(TensorCheck::into_scalar::<D>(&self.shape()));
        Ok(0.0)
    }
    pub fn sum_dim(self, dim: isize) -> Self {
        let dim = unwrap_dim_index(dim.try_dim_index(D), "Sum");
        self
    }
    pub fn cat(tensors: Vec<Self>, dim: isize) -> Self {
        let dim = unwrap_dim_index(dim.try_dim_index(D), "Cat");
        tensors[0]
    }
    pub fn unsqueeze<const D2: usize>(self) -> Tensor<D2> {
        check!(TensorCheck::unsqueeze::<D, D2>());
        self
    }
}
pub fn softmax<const D: usize>(tensor: Tensor<D>, dim: isize) -> Tensor<D> {
    let dim = unwrap_dim_index(dim.try_dim_index(D), "Softmax");
    tensor
}
pub(crate) fn unwrap_dim_index<E>(result: Result<usize, E>, op: &str) -> usize {
    match result {
        Ok(dim) => dim,
        Err(error) => {
            unreachable!()
        }
    }
}
"""
CHECK_RS = b"""
pub(crate) enum TensorCheck { Ok }
impl TensorCheck {
    pub(crate) fn narrow<const D: usize>(
        tensor: &Tensor<D>, dim: usize, start: usize, length: usize,
    ) -> Self {
        let mut check = Self::Ok;
        if start + length > tensor.shape()[dim] {
            check = check.register(
                "Narrow",
                TensorError::new(format!(
                    "Can't narrow at dimension {dim}, start + length exceeds"
                )),
            );
        }
        check
    }
    pub(crate) fn into_scalar<const D: usize>(shape: &Shape) -> Self {
        let mut check = Self::Ok;
        if shape.num_elements() != 1 {
            check = check.register(
                "Into Scalar",
                TensorError::new("Only tensors with 1 element can be converted into scalar."),
            );
        }
        check
    }
    pub(crate) fn unsqueeze<const D1: usize, const D2: usize>() -> Self {
        let mut check = Self::Ok;
        if D2 < D1 {
            check = check.register(
                "Unsqueeze",
                TensorError::new(format!(
                    "Can't unsqueeze smaller tensor, got dim {D2}, expected > {D1}"
                )),
            );
        }
        check
    }
}
"""


def write_tree(root: Path) -> None:
    files = {
        "Cargo.toml": b'[workspace.package]\nversion = "0.9.0"\n',
        "crates/burn/Cargo.toml": b'[package]\nname = "burn"\n',
        "crates/burn/src/lib.rs": b"pub use burn_nn as nn;\npub use burn_tensor as tensor;\n",
        "crates/burn-nn/Cargo.toml": b'[package]\nname = "burn-nn"\n',
        "crates/burn-nn/src/lib.rs": b"mod conv;\nmod checks;\npub use conv::*;\n",
        "crates/burn-nn/src/checks.rs": CHECKS,
        "crates/burn-nn/src/conv.rs": CONV,
        "crates/burn-tensor/Cargo.toml": b'[package]\nname = "burn-tensor"\n',
        "crates/burn-tensor/src/lib.rs": b"mod base;\nmod check;\npub use base::*;\n",
        "crates/burn-tensor/src/base.rs": TENSOR,
        "crates/burn-tensor/src/check.rs": CHECK_RS,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)


def record(file: str, line: int, message: str, source: str = "", rid: str = "0123") -> Record:
    panic = PanicSite(
        error_message=message, message_pattern="", file_path=file, line_number=line,
        source_code=source or None,
    )  # fmt: skip
    return Record(rid, panic, Knowledge(), Origin("test.json", 1))


GROUPS = record(
    "crates/burn-nn/src/checks.rs", 6,
    "Both channels must be divisible by the number of groups. Got channels_in={}, groups={}",
)  # fmt: skip


def flagged(src: str, rule_id: str) -> list[int]:
    head = "use burn::nn::ConvConfig;\nuse burn::tensor::Tensor;\n"
    found = analyze(head + src, "src/lib.rs").findings
    return [f.span.start.row - 1 for f in found if f.rule == rule_id]


def derived(result: Derived | NotDerived) -> Derived:
    assert isinstance(result, Derived), str(result)
    return result

//! The v0.21 API generation: generic `Tensor<B, D, K>`, `ctc_loss::<B>`, backend trait calls
//! and the raw cubecl kernels. burn-cuda is a direct dependency, so the crate is cubecl.

use burn::tensor::backend::Backend;
use burn::tensor::module::ctc_loss;
use burn::tensor::ops::ModuleOps;
use burn::tensor::{Int, Tensor, TensorData};
use burn_cubecl::kernel::ctc as kernels;

const TARGET_WIDTH: usize = 2048 + 2048;

pub fn generic<B: Backend>(log_probs: Tensor<B, 3>, device: &B::Device) -> Tensor<B, 1> {
    let targets = Tensor::<B, 2, Int>::zeros([2, TARGET_WIDTH], device);
    let il = Tensor::<B, 1, Int>::full([2], 9000, device);
    let tl = Tensor::<B, 1, Int>::full([2], 9, device);
    ctc_loss::<B>(log_probs, targets, il, tl, 0) //~ ctc-target-capacity error
}

pub fn generic_small<B: Backend>(log_probs: Tensor<B, 3>, device: &B::Device) -> Tensor<B, 1> {
    let targets = Tensor::<B, 2, Int>::from_data(TensorData::new(vec![1i64; 128], [2, 64]), device);
    let il = Tensor::<B, 1, Int>::full([2], 90, device);
    let tl = Tensor::<B, 1, Int>::full([2], 9, device);
    ctc_loss::<B>(log_probs, targets, il, tl, 0)
}

pub fn backend_ops<B>(log_probs: Tensor<B, 3>, device: &B::Device) -> B::FloatTensorPrimitive
where
    B: Backend,
{
    let targets = Tensor::<B, 2, Int>::zeros([2, 5000], device);
    let il = Tensor::<B, 1, Int>::full([2], 9000, device).into_primitive();
    let tl = Tensor::<B, 1, Int>::full([2], 9, device).into_primitive();
    let lp = log_probs.into_primitive().tensor();
    B::ctc_loss(lp, targets.into_primitive(), il, tl, 0) //~ ctc-target-capacity error
}

pub fn qualified<B: Backend>(log_probs: Tensor<B, 3>, device: &B::Device) -> B::FloatTensorPrimitive {
    let targets = Tensor::<B, 2, Int>::zeros([2, 4096], device).into_primitive();
    let il = Tensor::<B, 1, Int>::full([2], 9000, device).into_primitive();
    let tl = Tensor::<B, 1, Int>::full([2], 9, device).into_primitive();
    <B as ModuleOps<B>>::ctc_loss(log_probs.into_primitive().tensor(), targets, il, tl, 0) //~ ctc-target-capacity error
}

/// A type parameter that is not a burn backend: its ctc_loss is someone else's.
pub trait Decoder {
    fn ctc_loss(a: Vec<f32>, targets: [[i64; 5000]; 2]) -> f32;
}

pub fn not_a_backend<D: Decoder>(a: Vec<f32>) -> f32 {
    D::ctc_loss(a, [[0; 5000]; 2])
}

pub fn raw_kernel<R: cubecl::Runtime>(parts: Parts<R>) -> Parts<R> {
    // CubeTensor shapes come from the caller: not known here.
    let (alpha, beta, nll) = kernels::ctc_alpha_beta(parts.0, parts.1, parts.2, parts.3, 0);
    (alpha, beta, nll, parts.3)
}

type Parts<R> = (
    burn_cubecl::tensor::CubeTensor<R>,
    burn_cubecl::tensor::CubeTensor<R>,
    burn_cubecl::tensor::CubeTensor<R>,
    burn_cubecl::tensor::CubeTensor<R>,
);

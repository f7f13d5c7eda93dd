//! Module forwards that change the shape by their config (Conv2d, Conv1d, pools, Embedding,
//! Linear), then the op that panics.
use burn::nn::conv::{Conv1dConfig, Conv2d, Conv2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2dConfig, AvgPool2dConfig, MaxPool2dConfig};
use burn::nn::{EmbeddingConfig, LinearConfig, PaddingConfig2d};
use burn::prelude::*;

pub fn convs(device: &Device) -> Vec<Tensor<4>> {
    let x = Tensor::<4>::zeros([2, 3, 32, 32], device);
    let conv = Conv2dConfig::new([3, 16], [3, 3]).init(device);
    let y = conv.forward(x.clone());
    let a = y.clone().narrow(2, 28, 3); // expect: narrow-out-of-range
    let b = y.clone().narrow(2, 28, 2); // ok
    let c = y.narrow(1, 8, 9); // expect: narrow-out-of-range
    let padded = Conv2dConfig::new([3, 8], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .init(device);
    let z = padded.forward(x.clone());
    let d = z.clone().narrow(3, 30, 2); // ok
    let e = z.narrow(3, 31, 2); // expect: narrow-out-of-range
    let strided = Conv2dConfig::new([3, 4], [4, 4]).with_stride([2, 2]).init(device);
    let s = strided.forward(x.clone());
    let f = s.clone().narrow(2, 14, 1); // ok
    let g = s.narrow(2, 14, 2); // expect: narrow-out-of-range
    let same = Conv2dConfig::new([3, 4], [3, 3]).with_padding(PaddingConfig2d::Same).init(device);
    let h = same.forward(x).narrow(2, 16, 16); // ok
    vec![a, b, c, d, e, f, g, h]
}

pub fn pools(device: &Device) -> Vec<Tensor<4>> {
    let x = Tensor::<4>::zeros([2, 8, 16, 16], device);
    let pool = MaxPool2dConfig::new([2, 2]).init();
    let p = pool.forward(x.clone());
    let a = p.clone().narrow(3, 4, 5); // expect: narrow-out-of-range
    let b = p.narrow(3, 4, 4); // ok
    let avg = AvgPool2dConfig::new([3, 3]).with_strides([1, 1]).init();
    let c = avg.forward(x.clone()).narrow(2, 10, 5); // expect: narrow-out-of-range
    let adaptive = AdaptiveAvgPool2dConfig::new([4, 4]).init();
    let q: Tensor<2> = adaptive.forward(x).flatten(1, 3);
    let _fits = q.clone().matmul(Tensor::zeros([128, 10], device)); // ok
    let _bad = q.matmul(Tensor::zeros([64, 10], device)); // expect: matmul-inner-dim-mismatch
    vec![a, b, c]
}

pub fn conv1d(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([4, 2, 100], device);
    let conv = Conv1dConfig::new(2, 6, 5).with_stride(5).init(device);
    let y = conv.forward(x);
    let a = y.clone().narrow(2, 19, 2); // expect: narrow-out-of-range
    let b = y.narrow(2, 18, 2); // ok
    vec![a, b]
}

pub fn embeddings(device: &Device) -> Vec<Tensor<3>> {
    let ids = Tensor::<2, Int>::zeros([2, 10], device);
    let emb = EmbeddingConfig::new(1000, 64).init(device);
    let e = emb.forward(ids);
    let a = e.clone().narrow(2, 60, 8); // expect: narrow-out-of-range
    let b = e.narrow(1, 0, 10); // ok
    vec![a, b]
}

pub fn linear(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([3, 5, 32], device);
    let proj = LinearConfig::new(32, 24).init(device);
    let y = proj.forward(x);
    let mut parts = y.clone().split_with_sizes(vec![12, 8], 2); // expect: split-sizes-sum-mismatch
    parts.extend(y.split_with_sizes(vec![12, 12], 2)); // ok
    parts
}

/// The input comes at run time: only the dims the config fixes are known.
pub fn runtime_input(x: Tensor<4>, device: &Device) -> Vec<Tensor<4>> {
    let conv = Conv2dConfig::new([3, 16], [3, 3]).init(device);
    let y = conv.forward(x);
    let a = y.clone().narrow(1, 8, 9); // expect: narrow-out-of-range
    let b = y.narrow(2, 28, 3); // ok (the height comes at run time)
    vec![a, b]
}

/// Look-alike: the module comes from the caller.
pub fn runtime_module(conv: &Conv2d, device: &Device) -> Tensor<4> {
    let x = Tensor::<4>::zeros([2, 3, 32, 32], device);
    conv.forward(x).narrow(1, 8, 9) // ok
}

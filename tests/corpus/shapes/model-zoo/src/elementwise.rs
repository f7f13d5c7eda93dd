//! Shapes kept through activations, elementwise ops and scalar arithmetic.
use burn::nn::{
    BatchNormConfig, DropoutConfig, Gelu, GroupNormConfig, LayerNormConfig, LeakyReluConfig, Relu,
    RmsNormConfig, Sigmoid, Tanh,
};
use burn::prelude::*;
use burn::tensor::activation::{gelu, log_softmax, relu, sigmoid, softmax};

mod local {
    use burn::prelude::*;

    /// A "sigmoid" of this crate that doubles the width (burn's keeps the shape).
    pub fn sigmoid(x: Tensor<2>) -> Tensor<2> {
        Tensor::cat(vec![x.clone(), x], 1)
    }
}

pub fn free_activations(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([4, 8], device);
    let a = relu(x.clone());
    let a_bad = a.clone().narrow(1, 4, 8); // expect: narrow-out-of-range
    let a_ok = a.narrow(1, 4, 4); // ok
    let g = gelu(x.clone()).narrow(0, 3, 2); // expect: narrow-out-of-range
    let s = sigmoid(x.clone());
    let s_ok = s.narrow(0, 3, 1); // ok
    let p = log_softmax(x.clone(), 1).narrow(1, 6, 3); // expect: narrow-out-of-range
    let q = softmax(x.clone(), 0).narrow(1, 0, 8); // ok
    let wide = local::sigmoid(x).narrow(1, 8, 8); // ok (the crate's own sigmoid doubles the width)
    vec![a_bad, a_ok, g, s_ok, p, q, wide]
}

pub fn tensor_methods(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::ones([6, 10], device);
    let e = x.clone().exp().narrow(1, 8, 3); // expect: narrow-out-of-range
    let t = x.clone().tanh().abs().neg();
    let t_bad = t.clone().matmul(x.clone()); // expect: matmul-inner-dim-mismatch
    let t_ok = t.matmul(x.clone().transpose()); // ok
    let c = x.clone().clamp(0.0, 1.0).sqrt().log1p();
    let mut parts = c.clone().split_with_sizes(vec![4, 4], 1); // expect: split-sizes-sum-mismatch
    let halves = c.split_with_sizes(vec![4, 6], 1); // ok
    let d = x.detach().require_grad().sin().topk(11, 1); // expect: topk-k-out-of-range
    parts.extend(halves);
    parts.extend([e, t_bad, t_ok, d]);
    parts
}

pub fn scalar_arithmetic(device: &Device) -> Tensor<2> {
    let x = Tensor::<2>::zeros([3, 5], device);
    let y = x.clone() * 2.0;
    let z = (y + 1.0) / 4.0;
    let w = z - 0.5;
    let other = Tensor::<2>::zeros([3, 4], device);
    let _bad = Tensor::cat(vec![w.clone(), other.clone()], 0); // expect: cat-mismatched-shapes
    let _ok = Tensor::cat(vec![w.clone(), other], 1); // ok
    let m = x.mul_scalar(3.0).add_scalar(1.0).powf_scalar(2.0).sub_scalar(1.0).div_scalar(2.0);
    let _top = m.clone().topk(5, 1); // ok
    m.topk(6, 1) // expect: topk-k-out-of-range
}

pub fn tensor_arithmetic(device: &Device) -> Vec<Tensor<2>> {
    let a = Tensor::<2>::zeros([4, 6], device);
    let b = Tensor::<2>::ones([4, 6], device);
    let sum = a.clone() + b.clone();
    let diff = a.clone() - b.clone();
    let prod = a.clone() * b.clone();
    let ratio = a.clone().div(b.clone());
    let bias = Tensor::<2>::ones([1, 6], device);
    let shifted = a.clone() + bias.clone();
    let s = sum.narrow(1, 5, 2); // expect: narrow-out-of-range
    let d: Tensor<1> = diff.clone().squeeze_dim(0); // expect: squeeze-dim-not-one
    let p = prod.clone().reshape([3, 8]); // ok
    let p_bad = prod.reshape([5, 5]); // expect: reshape-incompatible-shape
    let r: f32 = ratio.into_scalar(); // expect: into-scalar-multiple-elements
    let sh = shifted.narrow(0, 2, 3); // expect: narrow-out-of-range
    let row: Tensor<1> = bias.clone().squeeze_dim(0); // ok
    let neg = (a.clone() - diff * r).narrow(0, 0, 4); // ok
    vec![s, d.unsqueeze(), p, p_bad, sh, row.unsqueeze(), neg]
}

pub fn module_activations(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([2, 7, 16], device);
    let relu = Relu::new();
    let gelu = Gelu::new();
    let norm = LayerNormConfig::new(16).init(device);
    let dropout = DropoutConfig::new(0.1).init();
    let h = dropout.forward(norm.forward(gelu.forward(relu.forward(x.clone()))));
    let bad = h.clone().narrow(2, 10, 8); // expect: narrow-out-of-range
    let ok = h.narrow(2, 8, 8); // ok
    let sig = Sigmoid::new().forward(x.clone()).narrow(1, 5, 3); // expect: narrow-out-of-range
    let tanh = Tanh::new().forward(x).narrow(1, 4, 3); // ok
    vec![bad, ok, sig, tanh]
}

pub fn norm_forwards(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([2, 16, 10], device);
    let leaky = LeakyReluConfig::new().init();
    let rms = RmsNormConfig::new(10).init(device);
    let batch = BatchNormConfig::new(16).init(device);
    let group = GroupNormConfig::new(4, 16).init(device);
    let h = group.forward(batch.forward(rms.forward(leaky.forward(x))));
    let a = h.clone().narrow(2, 6, 5); // expect: narrow-out-of-range
    let b = h.clone().narrow(1, 12, 4); // ok
    let c = h.topk(11, 2); // expect: topk-k-out-of-range
    vec![a, b, c]
}

/// Look-alikes: tensors whose shape comes at run time.
pub fn runtime(x: Tensor<2>, p: Tensor<2>, device: &Device) -> Vec<Tensor<2>> {
    let a = relu(x.clone()).narrow(1, 4, 8); // ok (x comes from the caller)
    let row = Tensor::<2>::ones([1, 6], device);
    let b = (row + p).narrow(0, 2, 3); // ok (p's rows come at run time: the sum broadcasts to them)
    let c = (x.clone() * 2.0).topk(6, 1); // ok
    vec![a, b, c]
}

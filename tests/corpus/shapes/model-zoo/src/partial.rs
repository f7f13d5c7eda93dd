//! Partial shapes: the batch (or sequence) length comes at run time, the other dims are known.
//! Dims that are the same run-time value compare equal.
use burn::nn::LinearConfig;
use burn::prelude::*;

pub fn joins(x: Tensor<2>, device: &Device) -> Vec<Tensor<2>> {
    let [batch, _] = x.dims();
    let a = Tensor::<2>::zeros([batch, 3], device);
    let b = Tensor::<2>::zeros([batch, 4], device);
    let c = Tensor::cat(vec![a.clone(), b.clone()], 0); // expect: cat-mismatched-shapes
    let d = Tensor::cat(vec![a.clone(), b.clone()], 1); // ok
    let e = Tensor::cat(vec![a.clone(), a.clone()], 1); // ok
    let f = a.clone().narrow(1, 2, 2); // expect: narrow-out-of-range
    let g = a.clone().narrow(0, 0, 4); // ok
    let h = b.clone().topk(5, 1); // expect: topk-k-out-of-range
    let i = a.clone().matmul(Tensor::<2>::zeros([4, 5], device)); // expect: matmul-inner-dim-mismatch
    let j = a.clone().matmul(Tensor::<2>::zeros([3, 5], device)); // ok
    let k = a.clone().matmul(b.clone()); // ok
    let s = Tensor::stack::<3>(vec![a.clone(), b.clone()], 0); // expect: stack-mismatched-shapes
    let t = Tensor::stack::<3>(vec![a.clone(), a.clone()], 0); // ok
    let l = x.clone().narrow(1, 0, 1); // ok
    vec![c, d, e, f, g, h, i, j, k, s.flatten(0, 1), t.flatten(0, 1), l]
}

/// Two different run-time lengths: nothing is known about how they compare.
pub fn two_batches(x: Tensor<2>, y: Tensor<2>, device: &Device) -> Vec<Tensor<2>> {
    let [n, _] = x.dims();
    let [m, _] = y.dims();
    let p = Tensor::<2>::zeros([n, 3], device);
    let q = Tensor::<2>::zeros([m, 3], device);
    let a = Tensor::cat(vec![p.clone(), q.clone()], 1); // ok
    let b = Tensor::cat(vec![p, q], 0); // ok
    vec![a, b]
}

pub fn sequences(h: Tensor<3>, device: &Device) -> Vec<Tensor<3>> {
    let [b, t, _] = h.dims();
    let q = Tensor::<3>::zeros([b, t, 8], device);
    let a = Tensor::cat(vec![h.clone(), q.clone()], 2); // ok
    let c = Tensor::cat(vec![h.clone(), q.clone()], 1); // ok
    let k = Tensor::<3>::zeros([b, 8, t], device);
    let d = q.clone().matmul(k.clone()); // ok
    let e = k.matmul(q.clone()); // ok
    let f = q.clone().narrow(2, 4, 5); // expect: narrow-out-of-range
    let g = q.clone().swap_dims(1, 2).narrow(1, 4, 5); // expect: narrow-out-of-range
    let r = q.reshape([b, t, 2, 4]);
    let i = r.clone().narrow(3, 2, 3).flatten(2, 3); // expect: narrow-out-of-range
    let j = r.narrow(2, 0, 2).flatten(2, 3); // ok
    vec![a, c, d, e, f, g, i, j]
}

pub fn through_linear(x: Tensor<2>, device: &Device) -> Vec<Tensor<2>> {
    let linear = LinearConfig::new(32, 16).init(device);
    let y = linear.forward(x.clone());
    let a = y.clone().narrow(1, 10, 8); // expect: narrow-out-of-range
    let b = y.clone().narrow(1, 8, 8); // ok
    let c = y.narrow(0, 0, 8); // ok
    let [batch, _] = x.dims();
    let r = x.clone().reshape([batch, 2, 16]);
    let d: Tensor<2> = r.clone().squeeze_dim(1); // expect: squeeze-dim-not-one
    let u: Tensor<3> = x.unsqueeze_dim(1);
    let e: Tensor<2> = u.squeeze_dim(1); // ok
    let f: Tensor<2> = r.narrow(2, 8, 8).flatten(1, 2); // ok
    vec![a, b, c, d, e, f]
}

pub fn splits(x: Tensor<2>, device: &Device) -> Vec<Tensor<2>> {
    let [batch, _] = x.dims();
    let c = Tensor::<2>::zeros([batch, 7], device);
    let mut parts = c.clone().split_with_sizes(vec![3, 3], 1); // expect: split-sizes-sum-mismatch
    parts.extend(c.clone().split_with_sizes(vec![3, 4], 1)); // ok
    parts.extend(c.split_with_sizes(vec![2, 2], 0)); // ok
    parts
}

/// Look-alike: the "known" dim is read from the environment.
pub fn from_env(device: &Device) -> Tensor<2> {
    let width: usize = std::env::var("WIDTH").unwrap().parse().unwrap();
    let a = Tensor::<2>::zeros([2, width], device);
    a.narrow(1, 2, 2) // ok
}

//! Shapes changed by a known op (swap_dims, transpose, permute, flatten, unsqueeze, reshape,
//! reductions) before the op that panics.
use burn::prelude::*;

pub fn swaps(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([2, 3, 4], device);
    let y = x.clone().swap_dims(1, 2);
    let a = y.clone().narrow(2, 2, 2); // expect: narrow-out-of-range
    let b = y.narrow(1, 2, 2); // ok
    let t = x.clone().transpose();
    let c = t.clone().matmul(t.clone()); // expect: matmul-inner-dim-mismatch
    let d = t.clone().matmul(x.clone()); // ok
    let e = x.clone().swap_dims(0, -1).narrow(0, 3, 2); // expect: narrow-out-of-range
    let f = x.clone().swap_dims(2, 2).narrow(2, 3, 1); // ok
    let p = x.clone().permute([2, 0, 1]);
    let g = p.clone().narrow(1, 1, 2); // expect: narrow-out-of-range
    let h = p.narrow(2, 1, 2); // ok
    let i = x.t().narrow(1, 0, 4); // ok
    vec![a, b, c, d, e, f, g, h, i]
}

pub fn flattens(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<3>::zeros([2, 3, 4], device);
    let f: Tensor<2> = x.clone().flatten(1, 2);
    let a = f.clone().narrow(1, 10, 3); // expect: narrow-out-of-range
    let b = f.clone().reshape([4, 6]); // ok
    let c = f.reshape([5, 5]); // expect: reshape-incompatible-shape
    let g = x.clone().flatten::<2>(0, 1);
    let d = g.clone().narrow(0, 5, 1); // ok
    let e = g.narrow(1, 3, 2); // expect: narrow-out-of-range
    let v: f32 = x.flatten::<1>(0, 2).into_scalar(); // expect: into-scalar-multiple-elements
    vec![a, b, c, d, e.mul_scalar(v)]
}

pub fn unsqueezes(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([2, 3, 4], device);
    let u: Tensor<4> = x.clone().unsqueeze_dim(1);
    let a: Tensor<3> = u.clone().squeeze_dim(1); // ok
    let b: Tensor<3> = u.squeeze_dim(2); // expect: squeeze-dim-not-one
    let w = x.clone().unsqueeze::<4>();
    let c = w.clone().squeeze_dim::<3>(0); // ok
    let d = w.squeeze_dim::<3>(1); // expect: squeeze-dim-not-one
    let e = x.unsqueeze_dim::<4>(3).squeeze_dim::<3>(-1); // ok
    vec![a, b, c, d, e]
}

pub fn untyped_reshapes(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<3>::zeros([2, 3, 4], device);
    let r = x.clone().reshape([6, 4]);
    let a = r.clone().narrow(1, 2, 3); // expect: narrow-out-of-range
    let b = r.narrow(0, 2, 3); // ok
    let r2 = x.clone().reshape([-1, 8]);
    let c = r2.clone().narrow(0, 2, 2); // expect: narrow-out-of-range
    let d = r2.narrow(1, 0, 8); // ok
    let r3 = x.clone().reshape([0, -1]);
    let e = r3.clone().narrow(1, 8, 4); // ok
    let f = r3.narrow(0, 1, 2); // expect: narrow-out-of-range
    let g = x.reshape([4, 6]).reshape([3, 7]); // expect: reshape-incompatible-shape
    vec![a, b, c, d, e, f, g]
}

pub fn reductions(device: &Device) -> f32 {
    let x = Tensor::<2>::ones([4, 6], device);
    let total: f32 = x.clone().sum().into_scalar(); // ok
    let mean: f32 = x.clone().mean().into_scalar(); // ok
    let rows: f32 = x.clone().sum_dim(1).into_scalar(); // expect: into-scalar-multiple-elements
    let cols = x.clone().mean_dim(0);
    let _c = cols.clone().narrow(1, 4, 3); // expect: narrow-out-of-range
    let _r: Tensor<1> = cols.squeeze_dim(0); // ok
    let _best = x.clone().argmax(1).narrow(1, 0, 1); // ok
    let _k = x.clone().max_dim(0).topk(2, 0); // expect: topk-k-out-of-range
    let _rep = x.repeat_dim(0, 3).narrow(0, 8, 4); // ok
    total + mean + rows
}

/// Look-alikes: the source shape comes at run time, or the op's result is not the same shape.
pub fn runtime(x: Tensor<3>, dims: [usize; 2]) -> Vec<Tensor<2>> {
    let a = x.clone().flatten::<2>(1, 2).narrow(1, 10, 3); // ok (x comes from the caller)
    let b = x.clone().reshape(dims).narrow(1, 2, 3); // ok (the shape comes from the caller)
    let c = x.swap_dims(1, 2).flatten::<2>(0, 1).reshape([5, 5]); // ok
    vec![a, b, c]
}

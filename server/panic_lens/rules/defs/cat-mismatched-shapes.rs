// Joining encoder and decoder features.
use burn::prelude::*;

mod local {
    pub struct Tensor;

    impl Tensor {
        pub fn cat(parts: Vec<Vec<u8>>, _dim: usize) -> Vec<u8> {
            parts.concat()
        }
    }
}

pub fn features(device: &Device) -> Tensor<2> {
    let a = Tensor::<2>::zeros([2, 3], device);
    let b = Tensor::<2>::zeros([2, 5], device);
    let c = Tensor::<2>::zeros([4, 3], device);
    let _wide = Tensor::cat(vec![a.clone(), b.clone()], 1); // ok
    let _tall = Tensor::cat(vec![a.clone(), c.clone()], 0); // ok
    let _last = Tensor::cat(vec![a.clone(), b.clone()], -1); // ok
    let _bad = Tensor::cat(vec![a.clone(), b], 0); // expect: cat-mismatched-shapes
    Tensor::cat(vec![a, c], 1) // expect: cat-mismatched-shapes
}

pub fn runtime(parts: Vec<Tensor<2>>, x: Tensor<2>, device: &Device) -> Tensor<2> {
    let y = Tensor::<2>::zeros([9, 9], device);
    let _a = Tensor::cat(vec![x, y], 0); // ok: one shape is not known
    Tensor::cat(parts, 1) // ok: the list is not known
}

pub fn batch_first(x: Tensor<2>, device: &Device) -> Tensor<2> {
    let [batch, _] = x.dims();
    let a = Tensor::<2>::zeros([batch, 3], device);
    let b = Tensor::<2>::zeros([batch, 4], device);
    let _wide = Tensor::cat(vec![a.clone(), b.clone()], 1); // ok: only the batch is shared
    let _same = Tensor::cat(vec![x.clone(), x.clone()], 1); // ok: the same run-time shape
    let _relu = Tensor::cat(vec![a.clone(), burn::tensor::activation::relu(b.clone())], 0); // expect: cat-mismatched-shapes
    Tensor::cat(vec![a, b * 2.0], 0) // expect: cat-mismatched-shapes
}

pub fn look_alikes() -> Vec<u8> {
    local::Tensor::cat(vec![vec![1, 2], vec![3]], 0) // ok
}

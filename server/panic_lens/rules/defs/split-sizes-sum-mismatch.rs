// Splitting fused projections back into their parts.
use burn::prelude::*;

const HEAD: usize = 16;

mod local {
    pub fn split_with_sizes(data: Vec<f32>, _sizes: Vec<usize>, _dim: usize) -> Vec<Vec<f32>> {
        vec![data]
    }
}

pub fn qkv(device: &Device) -> Vec<Tensor<2>> {
    let fused = Tensor::<2>::zeros([4, 3 * HEAD], device);
    let _bad = fused.clone().split_with_sizes(vec![HEAD, HEAD], 1); // expect: split-sizes-sum-mismatch
    let _last = fused.clone().split_with_sizes(vec![HEAD, 2 * HEAD + 1], -1); // expect: split-sizes-sum-mismatch
    fused.split_with_sizes(vec![HEAD, HEAD, HEAD], 1) // ok
}

pub fn rows(device: &Device, sizes: Vec<usize>, n: usize) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::ones([5, 2], device);
    let _a = x.clone().split_with_sizes(vec![2, 3], 0); // ok
    let _b = x.clone().split_with_sizes(vec![2, n], 0); // ok: a size is not known
    let _c = x.clone().split_with_sizes(vec![1, 1], 5); // ok: the dim is outside the rank
    x.split_with_sizes(sizes, 0) // ok: the sizes are not known
}

pub fn look_alikes() -> Vec<Vec<f32>> {
    local::split_with_sizes(vec![0.0; 6], vec![2, 3], 0) // ok
}

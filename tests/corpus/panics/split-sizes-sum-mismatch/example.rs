// Splitting a fused query/key/value projection.
use burn::prelude::*;

const D_MODEL: usize = 64;

mod local {
    pub fn split_with_sizes(v: Vec<f32>, sizes: Vec<usize>, _dim: usize) -> Vec<Vec<f32>> {
        let mut out = Vec::new();
        let mut rest = v;
        for s in sizes {
            let tail = rest.split_off(s.min(rest.len()));
            out.push(rest);
            rest = tail;
        }
        out
    }
}

pub fn qkv(device: &Device) -> Vec<Tensor<2>> {
    let fused = Tensor::<2>::zeros([8, 3 * D_MODEL], device);
    let _bad = fused.clone().split_with_sizes(vec![D_MODEL, D_MODEL], 1); // expect: split-sizes-sum-mismatch
    fused.split_with_sizes(vec![D_MODEL, D_MODEL, D_MODEL], 1) // ok
}

pub fn rows(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([4, 6], device);
    let _over = x.clone().split_with_sizes(vec![3, 3], 0); // expect: split-sizes-sum-mismatch
    let _under = x.clone().split_with_sizes(vec![2, 3], -1); // expect: split-sizes-sum-mismatch
    x.split_with_sizes(vec![1, 3], 0) // ok
}

pub fn dynamic(x: Tensor<2>, sizes: Vec<usize>) -> Vec<Tensor<2>> {
    x.split_with_sizes(sizes, 1) // ok
}

pub fn look_alikes() -> usize {
    let parts = local::split_with_sizes(vec![0.0; 6], vec![2, 3], 0); // ok
    let (a, b) = [1, 2, 3].split_at(1); // ok
    parts.len() + a.len() + b.len()
}

// Batching frames into one tensor.
use burn::prelude::*;

mod local {
    pub fn stack(items: Vec<Vec<u8>>, _dim: usize) -> Vec<Vec<u8>> {
        items
    }
}

pub fn frames(device: &Device) -> Tensor<3> {
    let a = Tensor::<2>::zeros([2, 3], device);
    let b = Tensor::<2>::zeros([2, 3], device);
    let c = Tensor::<2>::zeros([3, 2], device);
    let _ok = Tensor::stack::<3>(vec![a.clone(), b.clone()], 0); // ok
    let _last = Tensor::stack::<3>(vec![a.clone(), c.clone()], -1); // expect: stack-mismatched-shapes
    Tensor::stack::<3>(vec![a, b, c], 0) // expect: stack-mismatched-shapes
}

pub fn runtime(items: Vec<Tensor<2>>, x: Tensor<2>, device: &Device) -> Tensor<3> {
    let y = Tensor::<2>::zeros([9, 9], device);
    let _a = Tensor::stack::<3>(vec![x, y], 0); // ok: one shape is not known
    Tensor::stack(items, 0) // ok: the list is not known
}

pub fn per_batch(x: Tensor<2>, device: &Device) -> Tensor<3> {
    let a = Tensor::<2>::zeros([x.dims()[0], 3], device);
    let b = Tensor::<2>::zeros([x.dims()[0], 4], device);
    let _same = Tensor::stack::<3>(vec![x.clone(), x.clone().exp()], 0); // ok: the same run-time shape
    Tensor::stack::<3>(vec![a, b], 0) // expect: stack-mismatched-shapes
}

pub fn look_alikes() -> Vec<Vec<u8>> {
    local::stack(vec![vec![1, 2, 3], vec![4]], 0) // ok
}

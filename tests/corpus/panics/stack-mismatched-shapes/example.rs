// Batching token sequences.
use burn::prelude::*;

mod local {
    pub fn stack(items: Vec<Vec<i32>>, _dim: usize) -> Vec<i32> {
        items.into_iter().flatten().collect()
    }
}

pub fn batch(device: &Device) -> Tensor<2, Int> {
    let a = Tensor::<1, Int>::from_ints([1, 2, 3], device);
    let b = Tensor::<1, Int>::from_ints([4, 5, 6, 7], device);
    Tensor::stack::<2>(vec![a, b], 0) // expect: stack-mismatched-shapes
}

pub fn images(device: &Device) -> Tensor<4> {
    let a = Tensor::<3>::zeros([3, 32, 32], device);
    let b = Tensor::<3>::zeros([3, 32, 32], device);
    let c = Tensor::<3>::zeros([3, 28, 28], device);
    let _ok = Tensor::stack::<4>(vec![a.clone(), b.clone()], 0); // ok
    Tensor::stack::<4>(vec![a, b, c], 0) // expect: stack-mismatched-shapes
}

pub fn collate(items: Vec<Tensor<1>>) -> Tensor<2> {
    Tensor::stack(items, 0) // ok
}

pub fn look_alikes() -> usize {
    let v = local::stack(vec![vec![1, 2, 3], vec![4]], 0); // ok
    let mut s: Vec<usize> = Vec::new();
    s.push(3); // ok
    v.len() + s.len()
}

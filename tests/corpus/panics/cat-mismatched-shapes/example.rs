// Skip connections in a small U-Net style decoder.
use burn::prelude::*;

mod local {
    pub struct Tensor;

    impl Tensor {
        // A project type with burn's names.
        pub fn cat(parts: Vec<Vec<u8>>, _dim: usize) -> Vec<u8> {
            parts.concat()
        }
    }
}

pub fn skip(device: &Device) -> Tensor<4> {
    let enc = Tensor::<4>::zeros([1, 32, 28, 28], device);
    let dec = Tensor::<4>::zeros([1, 64, 27, 27], device);
    Tensor::cat(vec![enc, dec], 1) // expect: cat-mismatched-shapes
}

pub fn features(device: &Device) -> Tensor<2> {
    let a = Tensor::<2>::zeros([2, 3], device);
    let b = Tensor::<2>::zeros([2, 4], device);
    let c = Tensor::<2>::zeros([3, 3], device);
    let _wide = Tensor::cat(vec![a.clone(), b.clone()], 1); // ok
    let _tall = Tensor::cat(vec![a.clone(), c.clone()], 0); // ok
    let _bad = Tensor::cat(vec![a.clone(), b], 0); // expect: cat-mismatched-shapes
    Tensor::cat(vec![a, c], 1) // expect: cat-mismatched-shapes
}

pub fn joined(parts: Vec<Tensor<2>>) -> Tensor<2> {
    Tensor::cat(parts, 1) // ok
}

pub fn look_alikes() -> usize {
    let bytes = local::Tensor::cat(vec![vec![1, 2], vec![3]], 0); // ok
    let s = ["a", "b"].concat(); // ok
    bytes.len() + s.len()
}

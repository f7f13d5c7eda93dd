// Buffers and constants of a small sequence model.
use burn::prelude::*;
use burn::tensor::{Shape, TensorData};

const HIDDEN: usize = 64;

mod local {
    pub struct Tensor<const D: usize>(pub Vec<usize>);
    impl<const D: usize> Tensor<D> {
        pub fn zeros(shape: [usize; 3]) -> Self {
            Self(shape.to_vec())
        }
    }
}

pub fn buffers(device: &Device, dims: Vec<usize>) -> Vec<Tensor<2>> {
    let a = Tensor::<2>::zeros([8, HIDDEN], device); // ok
    let b = Tensor::<2>::zeros([1, 8, HIDDEN], device); // expect: tensor-creation-rank-mismatch
    let c = Tensor::<2>::ones(Shape::new([4, 4]), device); // ok
    let d = Tensor::<2>::zeros(dims, device); // ok
    let e = Tensor::<2>::from_data([1.0, 2.0, 3.0], device); // expect: tensor-creation-rank-mismatch
    let f = Tensor::<2>::from_data([[1.0, 2.0], [3.0, 4.0]], device); // ok
    let g = Tensor::<2>::full([2, 2, 2], 0.5, device); // expect: tensor-creation-rank-mismatch
    vec![a, b, c, d, e, f, g]
}

pub fn look_alikes(device: &Device) -> usize {
    let _data = TensorData::new(vec![0.0f32; 6], [2, 3]); // ok
    let _x = Tensor::<3>::zeros([1, 8, HIDDEN], device); // ok
    local::Tensor::<2>::zeros([1, 2, 3]).0.len() // ok
}

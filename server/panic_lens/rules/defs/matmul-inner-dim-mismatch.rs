// A tiny hand-written projection and attention score.
use burn::prelude::*;

mod local {
    pub struct Matrix(pub Vec<Vec<f32>>);

    impl Matrix {
        pub fn matmul(self, other: Matrix) -> Matrix {
            Matrix(vec![vec![0.0; other.0.len()]; self.0.len()])
        }
    }
}

pub fn project(device: &Device) -> Tensor<2> {
    let x = Tensor::<2>::zeros([4, 16], device);
    let w = Tensor::<2>::zeros([32, 16], device);
    let _bad = x.clone().matmul(w.clone()); // expect: matmul-inner-dim-mismatch
    x.matmul(w.transpose()) // ok
}

pub fn scores(device: &Device) -> Tensor<3> {
    let q = Tensor::<3>::zeros([2, 10, 64], device);
    let k = Tensor::<3>::zeros([2, 10, 64], device);
    let _wrong = q.clone().matmul(k.clone()); // expect: matmul-inner-dim-mismatch
    q.matmul(k.swap_dims(1, 2)) // ok
}

pub fn ints(device: &Device) -> Tensor<2, Int> {
    let a = Tensor::<2, Int>::ones([2, 3], device);
    let b = Tensor::<2, Int>::ones([3, 2], device);
    a.matmul(b) // ok
}

pub fn layer(x: Tensor<2>, w: Tensor<2>) -> Tensor<2> {
    x.matmul(w) // ok
}

pub fn look_alikes() -> usize {
    let m = local::Matrix(vec![vec![1.0; 3]; 2]).matmul(local::Matrix(vec![vec![1.0; 5]; 4])); // ok
    let dot: f32 = [1.0f32, 2.0].iter().zip([3.0f32, 4.0, 5.0].iter()).map(|(a, b)| a * b).sum(); // ok
    m.0.len() + dot as usize
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Tensor<2> {
    let a = Tensor::<2>::ones([3, 7], device);
    let b = Tensor::<2>::ones([7, 2], device);
    let c = Tensor::<2>::ones([2, 7], device);
    let _ok = a.clone().matmul(b); // ok
    a.matmul(c) // expect: matmul-inner-dim-mismatch
}

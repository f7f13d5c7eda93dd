// Attention-score helpers with explicit dimensions.
use burn::prelude::*;
use burn::tensor::activation::softmax;

mod local {
    pub struct Table {
        pub rows: Vec<Vec<f32>>,
    }

    impl Table {
        // Same name as burn's op, on a project type.
        pub fn swap_dims(self, _a: usize, _b: usize) -> Self {
            self
        }
    }
}

pub fn scores(device: &Device) -> Tensor<3> {
    let q = Tensor::<3>::ones([2, 4, 8], device);
    let k = Tensor::<3>::ones([2, 4, 8], device);
    let kt = k.swap_dims(1, 3); // expect: dim-index-out-of-bounds
    let s = q.matmul(kt);
    softmax(s, 3) // expect: dim-index-out-of-bounds
}

pub fn pooled(x: Tensor<3>) -> Tensor<3> {
    let a = x.clone().sum_dim(2); // ok
    let b = x.clone().mean_dim(-1); // ok
    let _c = x.clone().sum_dim(-4); // expect: dim-index-out-of-bounds
    a + b
}

pub fn joined(device: &Device) -> Tensor<2> {
    let a = Tensor::<2>::zeros([2, 3], device);
    let b = Tensor::<2>::zeros([2, 3], device);
    Tensor::cat(vec![a, b], 2) // expect: dim-index-out-of-bounds
}

pub fn stacked(device: &Device) -> Tensor<3> {
    let a = Tensor::<2>::zeros([2, 3], device);
    let b = Tensor::<2>::zeros([2, 3], device);
    Tensor::stack::<3>(vec![a, b], 2) // ok
}

pub fn by_param(x: Tensor<3>, dim: usize) -> Tensor<3> {
    x.sum_dim(dim) // ok
}

pub fn look_alikes() -> usize {
    let t = local::Table { rows: vec![vec![0.0; 3]; 2] };
    let t = t.swap_dims(1, 3); // ok
    let v = vec![1, 2, 3];
    let _x = v.get(3); // ok
    t.rows.len()
}

// Sequence models: time-major and batch-major layouts.
use burn::prelude::*;

mod local {
    pub struct Layout;

    impl Layout {
        pub fn movedim(&self, src: Vec<i32>, dst: Vec<i32>) -> bool {
            src == dst
        }
    }
}

pub fn time_major(x: Tensor<3>) -> Tensor<3> {
    x.movedim(vec![1, -2], vec![0, 2]) // expect: movedim-duplicate-dims
}

pub fn batch_major(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([10, 4, 32], device);
    let a = x.clone().movedim(vec![0, 1], vec![1, 0]); // ok
    let b = x.clone().movedim(vec![0, 1], vec![2, 2]); // expect: movedim-duplicate-dims
    let c = x.clone().movedim(vec![-1, 0], vec![0, -1]); // ok
    vec![a, b, c]
}

pub fn configured(x: Tensor<3>, src: Vec<i32>) -> Tensor<3> {
    x.movedim(src, vec![0, 1]) // ok
}

pub fn look_alikes(x: Tensor<3>) -> bool {
    let _s = x.swap_dims(0, 1); // ok
    local::Layout.movedim(vec![1, 1], vec![0, 2]) // ok
}

// Lines added with the rule file.
pub fn more(x: Tensor<4>, n: i32) -> Vec<Tensor<4>> {
    let a = x.clone().movedim(vec![0, 0], vec![1, 2]); // expect: movedim-duplicate-dims
    let b = x.clone().movedim(2, vec![-1, 3]); // expect: movedim-duplicate-dims
    let c = x.clone().movedim(vec![-1, -2], vec![0, 1]); // ok
    // Dim 4 is outside the rank: the dim-index check panics first.
    let d = x.clone().movedim(vec![4, 4], vec![0, 1]); // ok
    let e = x.clone().movedim(vec![4], vec![1, 1]); // ok
    let f = x.clone().movedim(vec![n, 1], vec![0, 0]); // ok (n is not known here)
    let g = Tensor::movedim(x.clone(), vec![0, 1], vec![3, -1]); // expect: movedim-duplicate-dims
    let h = x.clone().movedim(1, 2); // ok
    vec![a, b, c, d, e, f, g, h]
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.movedim(vec![0, 0], vec![1, 2]) // ok (the rank is not known)
}

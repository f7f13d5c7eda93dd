// Moving feature axes around before attention.
use burn::prelude::*;

mod local {
    pub struct Axes(pub Vec<usize>);

    impl Axes {
        pub fn movedim(self, src: Vec<usize>, dst: Vec<usize>) -> usize {
            self.0.len() + src.len() + dst.len()
        }
    }
}

pub fn channels_last(x: Tensor<4>) -> Tensor<4> {
    x.movedim(1, 3) // ok
}

pub fn heads_last(x: Tensor<4>) -> Tensor<4> {
    x.movedim(vec![1, 2], vec![3]) // expect: movedim-dims-length-mismatch
}

pub fn reorder(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([2, 8, 16], device);
    let a = x.clone().movedim(vec![0, 1], vec![1, 0]); // ok
    let b = x.clone().movedim(vec![0], vec![2, 1]); // expect: movedim-dims-length-mismatch
    let c = x.clone().movedim(2, 0); // ok
    vec![a, b, c]
}

pub fn configured(x: Tensor<3>, src: Vec<usize>, dst: Vec<usize>) -> Tensor<3> {
    x.movedim(src, dst) // ok
}

pub fn look_alikes(x: Tensor<3>) -> usize {
    let _p = x.permute([2, 0, 1]); // ok
    local::Axes(vec![0]).movedim(vec![0, 1], vec![2]) // ok
}

// Lines added with the rule file.
pub fn more(x: Tensor<4>, n: usize) -> Vec<Tensor<4>> {
    let a = x.clone().movedim(vec![0, 1], 3); // expect: movedim-dims-length-mismatch
    let b = x.clone().movedim(-1, vec![0, 1]); // expect: movedim-dims-length-mismatch
    let c = x.clone().movedim(vec![-1, -2], vec![0, 1]); // ok
    // A source repeated (1 and -3) panics first, with the duplicate message.
    let d = x.clone().movedim(vec![1, -3], vec![0]); // expect: movedim-duplicate-dims
    // Dim 4 is outside the rank: the dim-index check panics first.
    let e = x.clone().movedim(vec![4], vec![0, 1]); // ok
    let f = x.clone().movedim(vec![n, 1], vec![0]); // ok (n is not known here)
    let g = Tensor::movedim(x.clone(), vec![0, 1, 2], vec![3, 2]); // expect: movedim-dims-length-mismatch
    vec![a, b, c, d, e, f, g]
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.movedim(vec![0, 1], vec![1]) // ok (the rank is not known)
}

// Removing singleton axes from model outputs.
use burn::prelude::*;

const BATCH: usize = 32;

mod local {
    pub struct Stack(pub Vec<Vec<f32>>);

    impl Stack {
        pub fn squeeze_dim(self, _dim: usize) -> Vec<f32> {
            self.0.into_iter().flatten().collect()
        }
    }
}

pub fn regression_head(device: &Device) -> Tensor<1> {
    let out = Tensor::<2>::zeros([BATCH, 1], device);
    let _bad: Tensor<1> = out.clone().squeeze_dim(0); // expect: squeeze-dim-not-one
    out.squeeze_dim::<1>(1) // ok
}

pub fn channels(device: &Device) -> Tensor<2> {
    let x = Tensor::<3>::zeros([4, 1, 8], device);
    let _last = x.clone().squeeze_dim::<2>(-1); // expect: squeeze-dim-not-one
    let _both: Tensor<1> = x.clone().squeeze_dims(&[0, 1]); // expect: squeeze-dim-not-one
    x.squeeze_dim::<2>(-2) // ok
}

pub fn runtime(x: Tensor<2>, dim: usize) -> Tensor<1> {
    x.squeeze_dim::<1>(dim) // ok
}

pub fn look_alikes() -> usize {
    let v = local::Stack(vec![vec![1.0], vec![2.0]]).squeeze_dim(0); // ok
    let s = "  x ".trim(); // ok
    v.len() + s.len()
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Tensor<2> {
    let x = Tensor::<3>::zeros([1, 5, 1], device);
    let _a: Tensor<2> = x.clone().squeeze_dim(1); // expect: squeeze-dim-not-one
    let _b: Tensor<1> = x.clone().squeeze_dims(&[0, -1]); // ok
    // Three dims of a rank-3 tensor fail the "too many dimensions" check first.
    let _c: Tensor<1> = x.clone().squeeze_dims(&[0, 1, 2]); // ok
    x.squeeze_dim(0) // ok
}

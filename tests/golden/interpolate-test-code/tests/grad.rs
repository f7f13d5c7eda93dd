//! This test file runs a backward pass: its smooth resizes are errors.
use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

#[test]
fn lanczos_grad() {
    let device = Device::default().autodiff();
    let x = Tensor::<4>::ones([1, 1, 4, 4], &device).require_grad();
    let y = interpolate(x.clone(), [8, 8], InterpolateOptions::new(InterpolateMode::Lanczos3)); //~ interpolate-backward-mode error
    let grads = y.sum().backward();
    assert!(x.grad(&grads).is_some());
}

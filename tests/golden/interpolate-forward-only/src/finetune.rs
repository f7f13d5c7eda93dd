//! One file of the crate fine-tunes: it calls `.backward()`, so its smooth resizes are errors
//! (the crate enables wgpu), even in a function without the signal itself.

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

fn upsample(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bicubic)) //~ interpolate-backward-mode error
}

pub fn step(x: Tensor<4>, target: Tensor<4>) -> f32 {
    let x = x.require_grad();
    let loss = (upsample(x.clone()) - target).powi_scalar(2).mean();
    let grads = loss.backward();
    x.grad(&grads).map(|g| g.into_scalar()).unwrap_or(0.0)
}

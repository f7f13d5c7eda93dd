//! The v0.21 generation: `Tensor<B, 4>` and an `Autodiff<Metal>` backend as the training signal.

use burn::backend::{Autodiff, Metal};
use burn::nn::interpolate::{Interpolate2dConfig, InterpolateMode};
use burn::tensor::backend::Backend;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode as OpsMode, InterpolateOptions};
use burn::tensor::Tensor;

type TrainBackend = Autodiff<Metal>;

fn resize<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    interpolate(x, [128, 128], InterpolateOptions::new(OpsMode::Bilinear)) //~ interpolate-backward-mode error
}

fn main() {
    let device = Default::default();
    let x = Tensor::<TrainBackend, 4>::ones([1, 3, 64, 64], &device);
    let up = Interpolate2dConfig::new()
        .with_output_size(Some([128, 128]))
        .with_mode(InterpolateMode::Cubic) //~ interpolate-backward-mode error
        .init();
    let y = up.forward(x.clone()) + resize(x);
    println!("{}", y.sum());
}

// Examples of interpolate-backward-mode (from its golden crates; no Cargo.toml above, so the backend is unknown).
//! No Cargo.toml: the backend is unknown. The TrainStep impl makes this file train: warning.

use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig, InterpolateMode};
use burn::prelude::*;
use burn::train::{RegressionOutput, TrainOutput, TrainStep};

#[derive(Module, Debug)]
pub struct Upscaler {
    up: Interpolate2d,
}

pub fn upscaler() -> Upscaler {
    let config = Interpolate2dConfig::new().with_mode(InterpolateMode::Linear); // expect: interpolate-backward-mode
    Upscaler { up: config.init() } // expect: interpolate2d-missing-output-size-and-scale
}

impl TrainStep for Upscaler {
    type Input = (Tensor<4>, Tensor<4>);
    type Output = RegressionOutput;

    fn step(&self, (x, y): (Tensor<4>, Tensor<4>)) -> TrainOutput<RegressionOutput> {
        let out = self.up.forward(x);
        let loss = (out.clone() - y.clone()).powi_scalar(2).mean();
        let [n, c, h, w] = out.dims();
        let item = RegressionOutput::new(loss.clone(), out.reshape([n, c * h * w]), y.reshape([n, c * h * w]));
        TrainOutput::new(self, loss.backward(), item)
    }
}

//! Between the backbone and the trainer: trained too.

use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig, InterpolateMode};
use burn::prelude::*;

pub fn upsampler() -> Interpolate2d {
    Interpolate2dConfig::new()
        .with_output_size(Some([256, 256]))
        .with_mode(InterpolateMode::Linear) //~ interpolate-backward-mode warning
        .init()
}

pub fn decode<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    upsampler().forward(backbone::pyramid(x))
}

//! Spectrogram resizing inside the training graph (the crate trains: burn's `train` feature).

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn smooth_resize(x: Tensor<4>, frames: usize) -> Tensor<4> {
    let options = InterpolateOptions::new(InterpolateMode::Bicubic);
    interpolate(x, [80, frames], options)
}

pub fn nearest_resize(x: Tensor<4>, frames: usize) -> Tensor<4> {
    interpolate(x, [80, frames], InterpolateOptions::new(InterpolateMode::Nearest))
}

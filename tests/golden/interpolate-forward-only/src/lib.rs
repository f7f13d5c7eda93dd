//! An inference crate on wgpu (no `train`/`autodiff` feature). Forward-only resizes are safe:
//! a smooth mode there is only a hint.

pub mod finetune;

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

/// Preprocessing: resize camera frames before inference.
pub fn preprocess(frame: Tensor<4>) -> Tensor<4> {
    let options = InterpolateOptions::new(InterpolateMode::Bilinear).with_align_corners(false);
    interpolate(frame, [224, 224], options) //~ interpolate-backward-mode hint
}

pub fn preprocess_nearest(frame: Tensor<4>) -> Tensor<4> {
    interpolate(frame, [224, 224], InterpolateOptions::new(InterpolateMode::Nearest))
}

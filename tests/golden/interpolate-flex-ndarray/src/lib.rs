//! flex only, training: flex has a Bilinear/Bicubic backward (hint: not portable to cubecl)
//! but no Lanczos3 backward (warning).

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn smooth(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode hint
}

pub fn sharp(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Lanczos3)) //~ interpolate-backward-mode warning
}

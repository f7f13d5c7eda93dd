//! Used by `app` (inference) only: no member that trains depends on it.

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn pyramid<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    interpolate(x, [128, 128], InterpolateOptions::new(InterpolateMode::Bicubic)) //~ interpolate-backward-mode hint
}

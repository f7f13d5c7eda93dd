//! Uses the backbone, but nothing depends on it: no member trains it. Forward only: a hint.

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn thumbnail<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    let features = backbone::pyramid(x);
    interpolate(features, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode hint
}

//! A training crate on wgpu (burn features `wgpu` + `train`): every smooth mode is an error.
//! Comments and strings mentioning InterpolateMode::Bilinear are never flagged.

pub mod data;
pub mod lookalike;
pub mod nn_modules;

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
use burn::tensor::ops::InterpolateMode as Resize;

pub fn bilinear(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode error
}

pub fn bicubic_via_lets(x: Tensor<4>) -> Tensor<4> {
    let mode = Resize::Bicubic;
    let options = InterpolateOptions::new(mode).with_align_corners(true);
    interpolate(x, [32, 32], options) //~ interpolate-backward-mode error
}

pub fn lanczos_full_path(x: Tensor<4>) -> Tensor<4> {
    burn::tensor::module::interpolate(
        //~^ interpolate-backward-mode error
        x,
        [16, 16],
        InterpolateOptions::new(burn::tensor::ops::InterpolateMode::Lanczos3),
    )
}

pub fn nearest_modes(x: Tensor<4>) -> Tensor<4> {
    let a = interpolate(x.clone(), [8, 8], InterpolateOptions::new(InterpolateMode::Nearest));
    let b = interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::NearestExact));
    a + b
}

/// The mode comes from the caller: not known statically.
pub fn runtime_mode(x: Tensor<4>, mode: InterpolateMode) -> Tensor<4> {
    interpolate(x, [8, 8], InterpolateOptions::new(mode))
}

/// A later let shadows the risky mode.
pub fn shadowed(x: Tensor<4>) -> Tensor<4> {
    let mode = InterpolateMode::Bilinear;
    let _ = mode;
    let mode = InterpolateMode::Nearest;
    interpolate(x, [8, 8], InterpolateOptions::new(mode))
}

pub fn mentions() -> &'static str {
    // interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bilinear))
    "interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bicubic))"
}

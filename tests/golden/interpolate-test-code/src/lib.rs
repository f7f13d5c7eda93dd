//! The crate turns on `autodiff`, but tests and benches are entry points of their own: a
//! forward-only test is a hint; library code still counts the crate's features.

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn upsample(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [32, 32], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_forward_matches_reference() {
        let x = Tensor::<4>::ones([1, 1, 4, 4], &Default::default());
        let y = interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bilinear)); //~ interpolate-backward-mode hint
        assert_eq!(y.dims(), [1, 1, 8, 8]);
    }
}

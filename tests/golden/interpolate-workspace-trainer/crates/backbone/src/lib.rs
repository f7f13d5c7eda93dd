//! The backbone: forward code only. `trainer` (through `decoder`) trains it, so its smooth
//! resizes are warnings; its own tests still run forward only.

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

pub fn pyramid<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    let [_, _, h, w] = x.dims();
    interpolate(x, [h * 2, w * 2], InterpolateOptions::new(InterpolateMode::Bicubic)) //~ interpolate-backward-mode warning
}

pub fn shrink<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 4> {
    interpolate(x, [32, 32], InterpolateOptions::new(InterpolateMode::Nearest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bicubic_doubles_the_size() {
        let x = Tensor::<burn::backend::NdArray, 4>::ones([1, 1, 4, 4], &Default::default());
        let y = interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bicubic)); //~ interpolate-backward-mode hint
        assert_eq!(y.dims(), [1, 1, 8, 8]);
    }
}

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

#[test]
fn bicubic_shapes() {
    let x = Tensor::<4>::ones([1, 1, 4, 4], &Default::default());
    let y = interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bicubic)); //~ interpolate-backward-mode hint
    assert_eq!(y.dims(), [1, 1, 8, 8]);
}

use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

fn main() {
    let x = Tensor::<4>::ones([8, 3, 256, 256], &Default::default());
    for _ in 0..100 {
        let _ = interpolate(x.clone(), [512, 512], InterpolateOptions::new(InterpolateMode::Bicubic)); //~ interpolate-backward-mode hint
    }
}

//! The data side of a training crate: batchers resize data, which never requires grad, so a
//! smooth resize here is only a hint even though the crate trains.

use burn::data::dataloader::batcher::Batcher;
use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

#[derive(Clone)]
pub struct ImageBatch {
    pub images: Tensor<4>,
}

pub struct ImageBatcher;

impl Batcher<Vec<f32>, ImageBatch> for ImageBatcher {
    fn batch(&self, items: Vec<Vec<f32>>, device: &Device) -> ImageBatch {
        let n = items.len();
        let flat: Vec<f32> = items.into_iter().flatten().collect();
        let raw = Tensor::<4>::from_data(TensorData::new(flat, [n, 3, 32, 32]), device);
        let options = InterpolateOptions::new(InterpolateMode::Bilinear);
        ImageBatch { images: interpolate(raw, [64, 64], options) } //~ interpolate-backward-mode hint
    }
}

/// Outside the batcher the crate's `train` feature counts again.
pub fn augment(images: Tensor<4>) -> Tensor<4> {
    interpolate(images, [48, 48], InterpolateOptions::new(InterpolateMode::Bicubic)) //~ interpolate-backward-mode error
}

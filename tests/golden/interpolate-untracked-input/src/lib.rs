//! A crate that trains on wgpu only by its features (no backward pass in this file): a smooth
//! resize is an error where the tensor resized may track an autodiff graph, and a hint where
//! the file shows it cannot (made from data, detached, or handed to code of no module that
//! nothing here calls with a tracked tensor).

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

fn smooth() -> InterpolateOptions {
    InterpolateOptions::new(InterpolateMode::Bilinear)
}

/// A preprocessing pipeline: no module, its tensors come from data.
pub struct Pipeline {
    size: usize,
}

impl Pipeline {
    pub fn to_model_input(&self, video: Tensor<4>) -> Tensor<4> {
        resize(video, self.size)
    }

    pub fn from_pixels(&self, pixels: Vec<f32>, device: &Device) -> Tensor<4> {
        let raw = Tensor::<4>::from_data(TensorData::new(pixels, [1, 3, 32, 32]), device);
        let scaled = raw.mul_scalar(2.0).reshape([1, 3, 32, 32]);
        interpolate(scaled, [64, 64], InterpolateOptions::new(InterpolateMode::Bicubic)) //~ interpolate-backward-mode hint
    }

    pub fn detached(&self, x: Tensor<4>) -> Tensor<4> {
        interpolate(x.detach(), [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode hint
    }
}

fn resize(x: Tensor<4>, size: usize) -> Tensor<4> {
    let options = InterpolateOptions::new(InterpolateMode::Bilinear);
    interpolate(x, [size, size], options) //~ interpolate-backward-mode hint
}

#[derive(Module, Debug)]
pub struct Decoder {
    conv: Conv2d,
}

impl Decoder {
    pub fn init(device: &Device) -> Self {
        Self { conv: Conv2dConfig::new([8, 8], [3, 3]).init(device) }
    }

    /// A module's input may be another module's output.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let up = interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)); //~ interpolate-backward-mode error
        upsample(self.conv.forward(up))
    }
}

/// Private, but called from the module with its conv's output.
fn upsample(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [128, 128], InterpolateOptions::new(InterpolateMode::Bicubic)) //~ interpolate-backward-mode error
}

/// Public: its callers may be anywhere.
pub fn public_resize(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode error
}

/// No module, but it resizes a module's output itself.
pub struct Viewer {
    decoder: Decoder,
}

impl Viewer {
    pub fn show(&self, x: Tensor<4>) -> Tensor<4> {
        let out = self.decoder.forward(x);
        interpolate(out, [256, 256], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode error
    }

    pub fn through_a_field(&self, x: Tensor<4>) -> Tensor<4> {
        interpolate(x.add(self.bias()), [32, 32], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode error
    }

    fn bias(&self) -> Tensor<4> {
        self.decoder.conv.weight.val().reshape([1, 8, 8, 9])
    }
}

/// Options built elsewhere are not read: quiet, as before.
pub fn unknown_mode(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], smooth())
}

/// Private, and nothing here calls it yet: its callers are not known.
fn not_called_yet(x: Tensor<4>) -> Tensor<4> {
    interpolate(x, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear)) //~ interpolate-backward-mode error
}

//! The acoustic model: a spectrogram upsampler feeding a small convolutional encoder.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig, InterpolateMode};
use burn::nn::{Linear, LinearConfig, Relu};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode as ResizeMode, InterpolateOptions};

/// Mel bins after upsampling; the encoder expects this height.
const MEL_BINS: usize = 80;

#[derive(Config, Debug)]
pub struct AcousticModelConfig {
    pub num_classes: usize,
    pub hidden: usize,
    #[config(default = 400)]
    pub frames: usize,
}

#[derive(Module, Debug)]
pub struct AcousticModel {
    /// Smooth upsampling of the raw spectrogram. Linear has no backward kernel on wgpu.
    smooth: Interpolate2d,
    /// Nearest-neighbour upsampling of the energy channel: backward works everywhere.
    energy: Interpolate2d,
    conv: Conv2d,
    head: Linear,
    activation: Relu,
}

impl AcousticModelConfig {
    pub fn init(&self, device: &Device) -> AcousticModel {
        AcousticModel {
            smooth: Interpolate2dConfig::new()
                .with_output_size(Some([MEL_BINS, self.frames]))
                .with_mode(InterpolateMode::Linear)
                .init(),
            energy: Interpolate2dConfig::new()
                .with_output_size(Some([1, self.frames]))
                .with_mode(InterpolateMode::Nearest)
                .init(),
            conv: Conv2dConfig::new([2, 8], [3, 3]).init(device),
            head: LinearConfig::new(8 * MEL_BINS, self.num_classes).init(device),
            activation: Relu::new(),
        }
    }
}

impl AcousticModel {
    /// spectrogram [N, 1, mels, frames], energy [N, 1, 1, frames] -> log-probs [T, N, C]
    pub fn forward(&self, spectrogram: Tensor<4>, energy: Tensor<4>) -> Tensor<3> {
        let x = self.smooth.forward(spectrogram);
        let e = self.energy.forward(energy).repeat_dim(2, MEL_BINS);
        let x = self.activation.forward(self.conv.forward(Tensor::cat(vec![x, e], 1)));
        let [n, c, h, t] = x.dims();
        let x = x.permute([3, 0, 1, 2]).reshape([t, n, c * h]);
        log_softmax(self.head.forward(x), 2)
    }
}

/// Resizes a batch of spectrograms to the model's height with bicubic filtering.
/// The crate trains (burn's `train` feature), so its backward pass panics on wgpu.
pub fn resize_bicubic(x: Tensor<4>, frames: usize) -> Tensor<4> {
    let options = InterpolateOptions::new(ResizeMode::Bicubic).with_align_corners(true);
    interpolate(x, [MEL_BINS, frames], options)
}

/// The same resize with nearest-neighbour sampling: safe on every backend.
pub fn resize_nearest(x: Tensor<4>, frames: usize) -> Tensor<4> {
    interpolate(x, [MEL_BINS, frames], InterpolateOptions::new(ResizeMode::Nearest))
}

/// A look-alike: the augmentation pipeline has its own InterpolateMode, not burn's.
pub mod augment {
    #[derive(Clone, Copy, Debug)]
    pub enum InterpolateMode {
        Linear,
        Cubic,
    }

    pub fn time_stretch(samples: &[f32], rate: f32, mode: InterpolateMode) -> Vec<f32> {
        let len = (samples.len() as f32 / rate) as usize;
        (0..len)
            .map(|i| match mode {
                InterpolateMode::Linear => samples[((i as f32 * rate) as usize).min(samples.len() - 1)],
                InterpolateMode::Cubic => samples[(i * samples.len()) / len.max(1)],
            })
            .collect()
    }

    pub fn default_stretch(samples: &[f32]) -> Vec<f32> {
        time_stretch(samples, 1.1, InterpolateMode::Linear)
    }
}

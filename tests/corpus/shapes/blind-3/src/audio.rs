//! A speech front end: STFT power spectra, a strided Conv1d stem over mel frames, max pooling,
//! cepstral mean normalisation and fixed-size chunks for a frame classifier.

use burn::nn::conv::{Conv1d, Conv1dConfig};
use burn::nn::pool::{MaxPool1d, MaxPool1dConfig};
use burn::nn::{LayerNorm, LayerNormConfig, PaddingConfig1d};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::gelu;
use burn::tensor::signal::{StftOptions, rfft, stft};

use crate::hparams::{FRAME_SHIFT_MS, N_FFT, N_MELS, SAMPLE_RATE, TARGET_RATE, WHISPER_N_FFT};

/// Every n-th sample when going from the recording rate to the model rate.
const DECIMATE: usize = SAMPLE_RATE / TARGET_RATE;

/// Features with Whisper's window.
pub fn whisper_features(wave: Tensor<2>) -> Tensor<4> {
    stft(wave, None, StftOptions::new(WHISPER_N_FFT)) // expect: stft-n-fft-not-power-of-two
}

/// Features with the project's own window.
pub fn default_features(wave: Tensor<2>) -> Tensor<4> {
    stft(wave, None, StftOptions::new(N_FFT)) // ok
}

/// A 10 ms hop, computed from the frame shift.
pub fn hopped_features(device: &Device) -> (Tensor<4>, Tensor<4>) {
    let wave = Tensor::<2>::random([2, SAMPLE_RATE], Distribution::Default, device);
    let hop = FRAME_SHIFT_MS / 1000 * SAMPLE_RATE;
    let coarse = stft(wave.clone(), None, StftOptions { hop_length: hop, ..StftOptions::new(N_FFT) }); // expect: stft-hop-length-zero
    let hop = FRAME_SHIFT_MS * SAMPLE_RATE / 1000;
    let fine = stft(wave, None, StftOptions { hop_length: hop, ..StftOptions::new(N_FFT) }); // ok (160 samples)
    (coarse, fine)
}

/// The analysis window of a front end, set once in `new`.
pub struct FrontEnd {
    n_fft: usize,
    win_length: usize,
    narrow_win_length: usize,
}

impl FrontEnd {
    pub fn new() -> Self {
        Self { n_fft: N_FFT, win_length: 2 * N_FFT, narrow_win_length: 400 }
    }

    pub fn forward(&self, wave: Tensor<2>) -> Tensor<4> {
        let options = StftOptions { win_length: Some(self.win_length), ..StftOptions::new(self.n_fft) };
        stft(wave, None, options) // expect: stft-win-length-exceeds-n-fft
    }

    pub fn forward_narrow(&self, wave: Tensor<2>) -> Tensor<4> {
        let options = StftOptions { win_length: Some(self.narrow_win_length), ..StftOptions::new(self.n_fft) };
        stft(wave, None, options) // ok (400 <= 512)
    }
}

pub fn front_end_features(wave: Tensor<2>) -> (Tensor<4>, Tensor<4>) {
    let front = FrontEnd::new();
    (front.forward_narrow(wave.clone()), front.forward(wave))
}

/// The power spectrum of every frame.
fn frame_power(frames: Tensor<2>, n: usize) -> Tensor<2> {
    let (re, im) = rfft(frames, 1, Some(n)); // expect: rfft-n-not-power-of-two
    re.powf_scalar(2.0) + im.powf_scalar(2.0)
}

pub fn frame_powers(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let frames = Tensor::<2>::random([98, N_FFT], Distribution::Default, device);
    (frame_power(frames.clone(), N_FFT), frame_power(frames, WHISPER_N_FFT))
}

/// The FFT length of the caller.
pub fn spectrum_at(frames: Tensor<2>, n_fft: usize) -> Tensor<2> {
    let (re, _) = rfft(frames, -1, Some(n_fft)); // ok (n_fft from the caller)
    re
}

/// Grouped convolutions tried on the mel input.
pub fn group_sweep(device: &Device) -> Vec<Conv1d> {
    let mut convs = Vec::new();
    for groups in [1, 2, 4, 8, 16, 32] {
        convs.push(Conv1dConfig::new(N_MELS, 256, 3).with_groups(groups).init(device)); // expect: conv-groups-divide-channels
    }
    for groups in [1, 2, 4, 8, 16] {
        convs.push(Conv1dConfig::new(N_MELS, 256, 5).with_groups(groups).init(device)); // ok
    }
    convs.push(Conv1dConfig::new(N_MELS, N_MELS, 5).with_groups(N_MELS).init(device)); // ok (depthwise)
    convs
}

#[derive(Config, Debug)]
pub struct ConvStemConfig {
    #[config(default = 80)]
    pub n_mels: usize,
    #[config(default = 256)]
    pub width: usize,
    #[config(default = 2)]
    pub stride: usize,
}

#[derive(Module, Debug)]
pub struct ConvStem {
    conv1: Conv1d,
    conv2: Conv1d,
    pool: MaxPool1d,
    norm: LayerNorm,
}

impl ConvStemConfig {
    pub fn init(&self, device: &Device) -> ConvStem {
        ConvStem {
            conv1: Conv1dConfig::new(self.n_mels, self.width, 3).with_padding(PaddingConfig1d::Explicit(1, 1)).init(device),
            conv2: Conv1dConfig::new(self.width, self.width, 3).with_stride(self.stride).with_padding(PaddingConfig1d::Explicit(1, 1)).init(device),
            pool: MaxPool1dConfig::new(2).init(),
            norm: LayerNormConfig::new(self.width).init(device),
        }
    }
}

impl ConvStem {
    /// mel `[batch, n_mels, frames]` -> `[batch, frames / stride, width]`
    pub fn forward(&self, mel: Tensor<3>) -> Tensor<3> {
        let x = gelu(self.conv1.forward(mel));
        let x = gelu(self.conv2.forward(x));
        self.norm.forward(x.swap_dims(1, 2))
    }
}

/// 30 s of mel frames through the stem, then cut into chunks for the classifier.
pub fn chunk_walkthrough(device: &Device) {
    let stem = ConvStemConfig::new().init(device);
    let mel = Tensor::<3>::zeros([4, N_MELS, 3000], device);
    let frames = stem.forward(mel);

    let chunks = frames.clone().reshape([4, -1, 64, 256]); // expect: reshape-incompatible-shape
    let chunks = frames.clone().reshape([4, -1, 100, 256]); // ok (15 chunks of 100 frames)
    println!("chunks: {:?}", chunks.dims());

    let pooled = stem.pool.forward(frames.swap_dims(1, 2));
    let tail = pooled.clone().narrow(2, 700, 100); // expect: narrow-out-of-range
    let tail = pooled.narrow(2, 650, 100); // ok (the last 100 of 750)
    println!("tail: {:?}", tail.dims());
}

/// Loudness of a batch of one-second clips, in dB.
pub fn loudness_db(device: &Device) -> f32 {
    let wave = Tensor::<2>::random([4, SAMPLE_RATE], Distribution::Normal(0.0, 0.1), device);
    let rms = wave.powf_scalar(2.0).mean_dim(1).sqrt();
    let level = rms.clone().into_scalar::<f32>(); // expect: into-scalar-multiple-elements
    let level = rms.mean().into_scalar::<f32>(); // ok
    20.0 * level.log10()
}

/// Cepstral mean and variance normalisation with stored statistics.
pub fn normalize(device: &Device) -> Tensor<3> {
    let mel = Tensor::<3>::random([4, N_MELS, 3000], Distribution::Default, device).log1p();
    let mean = Tensor::<3>::zeros([1, 1, N_MELS], device);
    let scale = Tensor::<3>::ones([1, N_MELS, 1], device);
    let centered = mel.clone() - mean.clone(); // expect: binary-op-incompatible-shapes
    let centered = mel - mean.swap_dims(1, 2); // ok ([1, 80, 1] broadcasts)
    centered / scale // ok
}

/// Naive resampling by keeping every n-th sample.
pub fn resample_to_model_rate(wave: Tensor<2>) -> Tensor<2> {
    wave.slice(s![.., ..;DECIMATE]) // expect: slice-step-zero
}

pub fn downsample_48k(wave: Tensor<2>) -> Tensor<2> {
    wave.slice(s![.., ..;3]) // ok
}

/// Host-side reference used to check the tensor STFT on a single clip.
mod host {
    pub fn stft(samples: &[f32], n_fft: usize) -> Vec<f32> {
        samples.chunks(n_fft).map(|frame| frame.iter().map(|x| x * x).sum()).collect()
    }
}

pub fn reference_energy(samples: &[f32]) -> Vec<f32> {
    host::stft(samples, WHISPER_N_FFT) // ok (the crate's own host::stft)
}

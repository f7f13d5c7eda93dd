//! A signal and image front end: grouped and depthwise convolutions, 3-d convolutions with
//! `Same` padding and by the functional `conv3d`, deformable convolutions, upsampling by
//! `Interpolate1d`/`Interpolate2d` and pixel shuffle, then spectrograms by `stft` and `rfft`.

use burn::nn::conv::{
    Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, Conv3d, Conv3dConfig, ConvTranspose2d,
    ConvTranspose2dConfig, DeformConv2d, DeformConv2dConfig,
};
use burn::nn::interpolate::{Interpolate1dConfig, Interpolate2d, Interpolate2dConfig, InterpolateMode};
use burn::nn::{PaddingConfig1d, PaddingConfig2d, PaddingConfig3d, PixelShuffleConfig, PixelUnshuffleConfig};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::module::conv3d;
use burn::tensor::ops::PaddedConvOptions;
use burn::tensor::signal::{StftOptions, hann_window, rfft, stft};

use crate::hparams::signal::{HOP_LENGTH, N_FFT, STEM_CHANNELS, UPSCALE, WIN_LENGTH};

// ---------------------------------------------------------------------------------------------
// Grouped convolutions.
// ---------------------------------------------------------------------------------------------

/// The stem's layout, set once in `new`.
pub struct StemConfig {
    pub channels: [usize; 2],
    pub groups: usize,
}

impl StemConfig {
    pub fn new() -> Self {
        // one group per 64 input channels
        Self {
            channels: [STEM_CHANNELS, 2 * STEM_CHANNELS],
            groups: 64,
        }
    }

    pub fn init(&self, device: &Device) -> Conv2d {
        Conv2dConfig::new(self.channels, [3, 3]).with_groups(self.groups).init(device) // expect: conv-groups-divide-channels
    }
}

pub fn stem(device: &Device) -> Conv2d {
    StemConfig::new().init(device)
}

pub fn grouped_stem(device: &Device) -> Conv2d {
    Conv2dConfig::new([STEM_CHANNELS, 2 * STEM_CHANNELS], [3, 3]).with_groups(STEM_CHANNELS / 3).init(device) // ok (32 divides 96 and 192)
}

pub fn depthwise_1d(device: &Device) -> Vec<Conv1d> {
    let mut layers = Vec::new();
    for (c_in, c_out) in [(48, 48), (48, 96), (48, 64)] {
        layers.push(Conv1dConfig::new(c_in, c_out, 3).with_groups(c_in).init(device)); // expect: conv-groups-divide-channels
    }
    layers
}

pub fn upsampler(device: &Device) -> ConvTranspose2d {
    // a group per 128 channels
    let groups = STEM_CHANNELS / 128;
    ConvTranspose2dConfig::new([STEM_CHANNELS, STEM_CHANNELS], [2, 2]).with_stride([2, 2]).with_groups(groups).init(device) // expect: conv-groups-divide-channels
}

pub fn conv_from_args(device: &Device) -> Conv2d {
    let groups: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    Conv2dConfig::new([STEM_CHANNELS, STEM_CHANNELS], [3, 3]).with_groups(groups).init(device) // ok (groups from the command line)
}

// ---------------------------------------------------------------------------------------------
// `Same` padding with even kernels, 3-d convolutions.
// ---------------------------------------------------------------------------------------------

pub fn same_even_1d_2d(device: &Device) -> (Conv1d, Conv2d) {
    let c1 = Conv1dConfig::new(16, 16, 4).with_padding(PaddingConfig1d::Same).init(device); // ok (Conv1d pads asymmetrically)
    let c2 = Conv2dConfig::new([16, 16], [4, 4]).with_padding(PaddingConfig2d::Same).init(device); // ok (Conv2d pads asymmetrically)
    (c1, c2)
}

/// A video block: 2 frames by 3 x 3 pixels.
pub fn temporal_block(device: &Device) -> Conv3d {
    Conv3dConfig::new([16, 32], [2, 3, 3]).with_padding(PaddingConfig3d::Same).init(device) // expect: conv-same-padding-even-kernel
}

pub fn temporal_block_odd(device: &Device) -> Conv3d {
    Conv3dConfig::new([16, 32], [3, 3, 3]).with_padding(PaddingConfig3d::Same).init(device) // ok
}

pub fn temporal_block_explicit(device: &Device) -> Conv3d {
    Conv3dConfig::new([16, 32], [2, 3, 3]).with_padding(PaddingConfig3d::Explicit(1, 1, 1)).init(device) // ok (explicit padding)
}

/// The functional 3-d convolution of a clip [batch, 4, frames, 16, 16].
pub fn clip_features(device: &Device) -> [Tensor<5>; 2] {
    let clip = Tensor::<5>::random([1, 4, 8, 16, 16], Distribution::Default, device);
    let weight = Tensor::<5>::random([8, 4, 3, 3, 3], Distribution::Default, device);
    let symmetric = PaddedConvOptions::asymmetric([1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1);
    let causal = PaddedConvOptions::asymmetric([1, 1, 1], [2, 1, 1], [0, 1, 1], [1, 1, 1], 1);
    let a = conv3d(clip.clone(), weight.clone(), None, symmetric); // ok (start and end agree)
    let b = conv3d(clip, weight, None, causal); // expect: conv3d-asymmetric-padding
    [a, b]
}

// ---------------------------------------------------------------------------------------------
// Deformable convolutions.
// ---------------------------------------------------------------------------------------------

pub fn deformable_same(device: &Device) -> DeformConv2d {
    DeformConv2dConfig::new([64, 64], [4, 4]).with_padding(PaddingConfig2d::Same).init(device) // expect: conv-same-padding-even-kernel
}

pub fn deformable_offsets(device: &Device) -> Vec<DeformConv2d> {
    [1, 2, 4, 5]
        .iter()
        .map(|&g| DeformConv2dConfig::new([48, 64], [3, 3]).with_offset_groups(g).init(device)) // expect: deform-conv-offset-groups-divide-channels
        .collect()
}

pub fn deformable_offsets_input_only(device: &Device) -> DeformConv2d {
    // 3 divides the 48 input channels, not the 64 outputs: only the input matters
    DeformConv2dConfig::new([48, 64], [3, 3]).with_offset_groups(3).init(device) // ok
}

// ---------------------------------------------------------------------------------------------
// Upsampling.
// ---------------------------------------------------------------------------------------------

pub fn upsample_features(x: Tensor<4>) -> [Tensor<4>; 2] {
    let [_, _, h, w] = x.dims();
    let to_input = Interpolate2dConfig::new().with_output_size(Some([2 * h, 2 * w])).init().forward(x.clone()); // ok
    let bare = Interpolate2dConfig::new().with_mode(InterpolateMode::Linear).init().forward(x); // expect: interpolate2d-missing-output-size-and-scale, interpolate-backward-mode (the warning: Linear has no backward kernel, a training hazard once the size is set)
    [to_input, bare]
}

pub fn stretch_envelope(x: Tensor<3>) -> [Tensor<3>; 2] {
    let doubled = Interpolate1dConfig::new().with_scale_factor(Some(2.0)).init().forward(x.clone()); // ok
    let both = Interpolate1dConfig::new().with_output_size(Some(64)).with_scale_factor(Some(2.0)).init().forward(x); // expect: derived-interpolate1d-config-output-size-either-scale-factor
    [doubled, both]
}

#[derive(Module, Debug)]
pub struct Upsampler {
    resize: Interpolate2d,
}

impl Upsampler {
    pub fn new(scale: Option<f32>) -> Self {
        let config = match scale {
            Some(s) => Interpolate2dConfig::new().with_scale_factor(Some([s, s])),
            None => Interpolate2dConfig::new().with_output_size(Some([224, 224])),
        };
        Self { resize: config.init() } // ok (each arm sets exactly one)
    }
}

pub fn super_resolution(x: Tensor<4>) -> [Tensor<4>; 2] {
    let up = PixelShuffleConfig::new(UPSCALE).init().forward(x.clone()); // ok
    // the factor of the 4x model, applied to the 2x one
    let wrong = PixelShuffleConfig::new(UPSCALE / 4).init().forward(x); // expect: derived-pixel-shuffle-config-upscale-factor-pixelshuffle-greater
    [up, wrong]
}

pub fn space_to_depth(x: Tensor<4>) -> Tensor<4> {
    let factor = UPSCALE - 2;
    PixelUnshuffleConfig::new(factor).init().forward(x) // expect: derived-pixel-unshuffle-config-downscale-factor-pixelunshuffle-greater
}

// ---------------------------------------------------------------------------------------------
// Spectrograms.
// ---------------------------------------------------------------------------------------------

/// Whisper's front end: a 25 ms window and a 10 ms hop.
pub fn whisper_spectrogram(audio: Tensor<2>) -> Tensor<4> {
    let options = StftOptions {
        hop_length: HOP_LENGTH,
        ..StftOptions::default()
    };
    stft(audio, None, options) // expect: stft-n-fft-not-power-of-two
}

/// The same window, zero-padded to the next power of two.
pub fn padded_spectrogram(audio: Tensor<2>) -> Tensor<4> {
    let device = audio.device();
    let window = hann_window(WIN_LENGTH, true, &device);
    let options = StftOptions {
        hop_length: HOP_LENGTH,
        win_length: Some(WIN_LENGTH),
        ..StftOptions::new(N_FFT)
    };
    stft(audio, Some(window), options) // ok (a 400 window in 512 points)
}

pub fn narrow_band(audio: Tensor<2>) -> Tensor<4> {
    let options = StftOptions {
        win_length: Some(WIN_LENGTH),
        ..StftOptions::new(256)
    };
    stft(audio, None, options) // expect: stft-win-length-exceeds-n-fft
}

pub fn dense_frames(audio: Tensor<2>) -> Tensor<4> {
    // one frame per 1024th of the window
    let hop = N_FFT / 1024;
    let options = StftOptions {
        hop_length: hop,
        ..StftOptions::new(N_FFT)
    };
    stft(audio, None, options) // expect: stft-hop-length-zero
}

pub fn default_hop(audio: Tensor<2>) -> Tensor<4> {
    stft(audio, None, StftOptions::new(N_FFT)) // ok (hop 128)
}

pub fn spectrum(frames: Tensor<2>) -> [(Tensor<2>, Tensor<2>); 2] {
    let fine = rfft(frames.clone(), 1, Some(N_FFT)); // ok
    let whisper = rfft(frames, -1, Some(WIN_LENGTH)); // expect: rfft-n-not-power-of-two
    [fine, whisper]
}

pub fn spectrum_from_env(frames: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
    let n: usize = std::env::var("N_FFT").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    rfft(frames, 1, Some(n)) // ok (n from the environment)
}

/// The crate's own host-side STFT options, named like burn's.
pub mod host {
    pub struct StftOptions {
        pub n_fft: usize,
        pub hop_length: usize,
    }

    impl StftOptions {
        pub fn new(n_fft: usize) -> Self {
            Self { n_fft, hop_length: n_fft / 4 }
        }
    }

    pub fn stft(samples: &[f32], options: StftOptions) -> Vec<Vec<f32>> {
        samples.chunks(options.hop_length.max(1)).map(|c| c.to_vec()).take(options.n_fft).collect()
    }
}

pub fn host_frames(samples: &[f32]) -> Vec<Vec<f32>> {
    host::stft(samples, host::StftOptions::new(400)) // ok (the crate's own stft)
}

//! A small DDPM: a linear beta schedule, sinusoidal timestep embeddings, a two-level U-Net with
//! group norms, transposed-conv and nearest-neighbour upsampling, and the sampling loop.

use burn::nn::conv::{Conv2d, Conv2dConfig, ConvTranspose2d, ConvTranspose2dConfig};
use burn::nn::interpolate::{Interpolate2dConfig, InterpolateMode};
use burn::nn::pool::AvgPool2dConfig;
use burn::nn::{
    GaussianNoise, GaussianNoiseConfig, GroupNorm, GroupNormConfig, Linear, LinearConfig,
    PaddingConfig2d, generate_sinusoids,
};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::{silu, softmax};

use crate::hparams::{BETA_END, BETA_START, NORM_GROUPS, NUM_STEPS};

/// The noise schedule, precomputed for every step.
pub struct Schedule {
    betas: Tensor<1>,
    alpha_bars: Tensor<1>,
}

impl Schedule {
    pub fn linear(steps: usize, device: &Device) -> Self {
        let t = Tensor::<1, Int>::arange(0..steps as i64, device).float() / (steps - 1) as f64;
        let betas = t * (BETA_END - BETA_START) + BETA_START;
        let alpha_bars = (betas.clone().neg() + 1.0).log().cumsum(0).exp();
        Self { betas, alpha_bars }
    }

    /// alpha_bar at step `t`, as a one-element tensor.
    fn coefficient(&self, t: usize) -> Tensor<1> {
        self.alpha_bars.clone().narrow(0, t, 1) // expect: narrow-out-of-range (miss: a field set by a constructor called with the step count, read in a method called from a reversed range loop)
    }
}

#[derive(Config, Debug)]
pub struct UNetConfig {
    #[config(default = 3)]
    pub channels: usize,
    #[config(default = 64)]
    pub base: usize,
    #[config(default = 128)]
    pub time_dim: usize,
    #[config(default = 1000)]
    pub num_steps: usize,
    /// The longest period of the timestep sinusoids: timesteps stay below 1000.
    #[config(default = 1000)]
    pub max_period: usize,
}

#[derive(Module, Debug)]
pub struct UNet {
    time_table: Tensor<2>,
    time_mlp: Linear,
    stem: Conv2d,
    down: Conv2d,
    norms: Vec<GroupNorm>,
    up: ConvTranspose2d,
    out: Conv2d,
}

impl UNetConfig {
    pub fn init(&self, device: &Device) -> UNet {
        let time_table = generate_sinusoids(self.num_steps, self.time_dim, self.max_period, device); // expect: positional-encoding-timescale-below-length
        let mut norms = Vec::new();
        for mult in [1, 2, 1] {
            norms.push(GroupNormConfig::new(NORM_GROUPS, self.base * mult).init(device)); // expect: group-norm-groups-divide-channels
        }
        let same = PaddingConfig2d::Explicit(1, 1, 1, 1);
        UNet {
            time_table,
            time_mlp: LinearConfig::new(self.time_dim, 2 * self.base).init(device),
            stem: Conv2dConfig::new([self.channels, self.base], [3, 3]).with_padding(same.clone()).init(device),
            down: Conv2dConfig::new([self.base, 2 * self.base], [3, 3]).with_stride([2, 2]).with_padding(same).init(device),
            norms,
            up: ConvTranspose2dConfig::new([2 * self.base, self.base], [2, 2]).with_stride([2, 2]).init(device),
            out: Conv2dConfig::new([2 * self.base, self.channels], [1, 1]).init(device),
        }
    }
}

impl UNet {
    /// x `[batch, channels, h, w]`, t `[batch]` -> predicted noise `[batch, channels, h, w]`
    pub fn forward(&self, x: Tensor<4>, t: Tensor<1, Int>) -> Tensor<4> {
        let emb = silu(self.time_mlp.forward(self.time_table.clone().select(0, t)));
        let h1 = silu(self.norms[0].forward(self.stem.forward(x)));
        let h2 = self.down.forward(h1.clone());
        let [batch, width, _, _] = h2.dims();
        let h2 = h2 + emb.reshape([batch, width, 1, 1]); // ok (the widths of the same config)
        let h2 = silu(self.norms[1].forward(h2));
        let h = silu(self.norms[2].forward(self.up.forward(h2)));
        self.out.forward(Tensor::cat(vec![h, h1], 1)) // ok (the same spatial size)
    }
}

/// The models trained so far.
pub fn models(device: &Device) -> Vec<UNet> {
    vec![
        UNetConfig::new().init(device),
        UNetConfig::new().with_num_steps(4 * NUM_STEPS).init(device),
        UNetConfig::new().with_base(48).init(device),
    ]
}

/// Ancestral sampling from pure noise.
pub fn sample(model: &UNet, device: &Device) -> Tensor<4> {
    let schedule = Schedule::linear(NUM_STEPS, device);
    let mut x = Tensor::<4>::random([4, 3, 32, 32], Distribution::Normal(0.0, 1.0), device);
    for t in (0..=NUM_STEPS).rev() {
        let alpha_bar = schedule.coefficient(t).reshape([1, 1, 1, 1]);
        let steps = Tensor::<1, Int>::full([4], t as i64, device);
        let eps = model.forward(x.clone(), steps);
        x = (x - eps * (alpha_bar.clone().neg() + 1.0).sqrt()) / alpha_bar.sqrt();
    }
    x
}

/// Signal-to-noise ratio at a few checkpoints, for the training log.
pub fn snr_checkpoints(device: &Device) -> Vec<Tensor<1>> {
    let schedule = Schedule::linear(NUM_STEPS, device);
    let mut out = Vec::new();
    for t in [0, NUM_STEPS / 2, NUM_STEPS - 1] {
        let a = schedule.alpha_bars.clone().narrow(0, t, 1); // ok
        out.push(a.clone() / (a.neg() + 1.0));
    }
    out.push(schedule.betas.clone().narrow(0, NUM_STEPS - 10, 10)); // ok (the last ten betas)
    out
}

/// Noise added to the latents during training.
pub fn latent_jitter() -> (GaussianNoise, GaussianNoise) {
    let swapped = GaussianNoiseConfig::new(BETA_START - BETA_END).init(); // expect: gaussian-noise-negative-std
    let jitter = GaussianNoiseConfig::new(BETA_END - BETA_START).init(); // ok
    (swapped, jitter)
}

/// The decoder paths compared in the ablation, on a 16x16 image.
pub fn decoder_walkthrough(device: &Device) {
    let image = Tensor::<4>::random([2, 3, 16, 16], Distribution::Default, device);
    let stem = Conv2dConfig::new([3, 64], [3, 3]).with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1)).init(device);
    let down = Conv2dConfig::new([64, 128], [3, 3]).with_stride([2, 2]).with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1)).init(device);
    let skip = silu(stem.forward(image));
    let deep = silu(down.forward(skip.clone()));

    // transposed convolutions
    let up = ConvTranspose2dConfig::new([128, 64], [3, 3]).with_stride([2, 2]).with_padding([1, 1]).init(device);
    let merged = Tensor::cat(vec![up.forward(deep.clone()), skip.clone()], 1); // expect: cat-mismatched-shapes
    let up = ConvTranspose2dConfig::new([128, 64], [3, 3]).with_stride([2, 2]).with_padding([1, 1]).with_padding_out([1, 1]).init(device);
    let merged = Tensor::cat(vec![up.forward(deep.clone()), skip.clone()], 1); // ok (16x16 with the output padding)
    println!("{:?}", merged.dims());

    // nearest-neighbour upsampling
    let lift = Conv2dConfig::new([128, 64], [1, 1]).init(device);
    let nearest = Interpolate2dConfig::new().with_scale_factor(Some([2.0, 2.0])).with_mode(InterpolateMode::Nearest).init(); // ok
    let lifted = nearest.forward(lift.forward(deep.clone()));
    let fused = lifted.clone() + skip.clone(); // ok (both [2, 64, 16, 16])
    let twice = nearest.forward(lifted) + skip; // expect: binary-op-incompatible-shapes
    println!("{fused} {twice}");

    // mid-block attention over the 8x8 map
    let flat = deep.clone().flatten::<3>(-1, -2); // expect: flatten-start-after-end
    let tokens = deep.flatten::<3>(-2, -1).swap_dims(1, 2); // ok
    let weights = softmax(tokens.clone().matmul(tokens.clone().swap_dims(1, 2)), 2); // ok ([2, 64, 128] x [2, 128, 64])
    let attended = weights.matmul(tokens); // ok
    let back = attended.clone().swap_dims(1, 2).reshape([2, 128, 16, 16]); // expect: reshape-incompatible-shape
    let back = attended.swap_dims(1, 2).reshape([2, 128, 8, 8]); // ok
    println!("{flat} {back}");

    // a preview strip of the sample and its thumbnail
    let pool = AvgPool2dConfig::new([2, 2]).init();
    let sample = Tensor::<4>::random([2, 3, 32, 32], Distribution::Default, device);
    let thumb = pool.forward(sample.clone());
    let strip: Tensor<5> = Tensor::stack(vec![sample.clone(), thumb.clone()], 1); // expect: stack-mismatched-shapes
    let strip: Tensor<5> = Tensor::stack(vec![sample, nearest.forward(thumb)], 1); // ok (the thumbnail upsampled back)
    println!("{:?}", strip.dims());
}

/// Group norms for a width the caller picks.
pub fn norm_for(channels: usize, device: &Device) -> GroupNorm {
    GroupNormConfig::new(NORM_GROUPS, channels).init(device) // ok (channels from the caller)
}

/// A host-side list of timesteps, cut like a tensor.
pub struct StepList {
    steps: Vec<usize>,
}

impl StepList {
    pub fn narrow(&self, start: usize, len: usize) -> &[usize] {
        let end = (start + len).min(self.steps.len());
        &self.steps[start.min(end)..end]
    }
}

pub fn late_steps() -> Vec<usize> {
    let list = StepList { steps: (0..NUM_STEPS).collect() };
    list.narrow(900, 200).to_vec() // ok (the crate's own StepList::narrow)
}

// Denoising autoencoder with an annealed input noise level.
use burn::nn::{DropoutConfig, GaussianNoise, GaussianNoiseConfig};
use burn::prelude::*;

const NOISE_FLOOR: f64 = -0.05;

pub struct GaussianNoiseConfigLocal {
    pub std: f64,
}

impl GaussianNoiseConfigLocal {
    pub fn new(std: f64) -> Self {
        Self { std }
    }
    pub fn init(&self) -> f64 {
        self.std.abs()
    }
}

pub fn noise_layers(epoch_level: f64) -> Vec<GaussianNoise> {
    let a = GaussianNoiseConfig::new(0.1).init(); // ok
    let b = GaussianNoiseConfig::new(0.0).init(); // ok
    let c = GaussianNoiseConfig::new(-0.2).init(); // expect: gaussian-noise-negative-std
    let d = GaussianNoiseConfig::new(epoch_level).init(); // ok
    let e = GaussianNoiseConfig::new(NOISE_FLOOR).init(); // expect: gaussian-noise-negative-std
    let cfg = GaussianNoiseConfig { std: 0.1 - 0.3 };
    let f = cfg.init(); // expect: gaussian-noise-negative-std
    vec![a, b, c, d, e, f]
}

pub fn look_alikes(_device: &Device) -> f64 {
    let _drop = DropoutConfig::new(0.1).init(); // ok
    GaussianNoiseConfigLocal::new(-0.2).init() // ok
}

// Lines added with the rule file.
pub fn more() -> Vec<GaussianNoise> {
    let a = burn::nn::GaussianNoiseConfig::new(-1e-3).init(); // expect: gaussian-noise-negative-std
    let b = GaussianNoiseConfig::new(1e-3).init(); // ok
    let c = GaussianNoiseConfig { std: 0.5 }.init(); // ok
    // -0.0 equals 0.0 but has the sign bit set.
    let d = GaussianNoiseConfig::new(-0.0).init(); // expect: gaussian-noise-negative-std
    vec![a, b, c, d]
}

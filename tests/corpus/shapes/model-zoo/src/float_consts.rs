//! `f32`/`f64` consts imported from another module of the crate.
use crate::hparams;
use crate::hparams::{
    BAD_DROPOUT, DROPOUT, HUBER_DELTA, NEG_THETA, OVER_SMOOTHING, RMS_EPS, ROPE_THETA, SMOOTHING,
    ZERO_EPS,
};
use burn::nn::loss::{BinaryCrossEntropyLossConfig, CrossEntropyLossConfig, HuberLossConfig};
use burn::nn::{DropoutConfig, GaussianNoiseConfig, RmsNormConfig, RotaryEncodingConfig};
use burn::prelude::*;

mod legacy {
    /// Same name as a hyper-parameter of `hparams`, another value.
    pub const BAD_DROPOUT: f64 = 0.3;
}

pub fn layers(device: &Device) {
    let _d = DropoutConfig::new(DROPOUT).init(); // ok
    let _bad = DropoutConfig::new(BAD_DROPOUT).init(); // expect: dropout-probability-range
    let _legacy = DropoutConfig::new(legacy::BAD_DROPOUT).init(); // ok
    let _double = DropoutConfig::new(hparams::DROPOUT * 2.0).init(); // ok
    let _over = DropoutConfig::new(DROPOUT * 11.0).init(); // expect: dropout-probability-range
    let _rms = RmsNormConfig::new(64).with_epsilon(RMS_EPS).init(device); // ok
    let _rms0 = RmsNormConfig::new(64).with_epsilon(ZERO_EPS).init(device); // expect: rms-norm-epsilon-positive
    let _rope = RotaryEncodingConfig::new(512, 64).with_theta(ROPE_THETA).init(device); // ok
    let _rope_bad = RotaryEncodingConfig::new(512, 64).with_theta(NEG_THETA).init(device); // expect: rotary-encoding-theta-positive
    let _noise = GaussianNoiseConfig::new(hparams::NOISE_STD).init(); // expect: gaussian-noise-negative-std
    let _noise_ok = GaussianNoiseConfig::new(-hparams::NOISE_STD).init(); // ok
    let _ce = CrossEntropyLossConfig::new().with_smoothing(Some(SMOOTHING)).init(device); // ok
    let _ce_bad = CrossEntropyLossConfig::new().with_smoothing(Some(OVER_SMOOTHING)).init(device); // expect: cross-entropy-smoothing-range
    let _bce = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(SMOOTHING - 0.2)).init(device); // expect: binary-cross-entropy-smoothing-range
    let _huber = HuberLossConfig::new(HUBER_DELTA).init(); // expect: huber-delta-negative
    let _huber_ok = HuberLossConfig::new(-HUBER_DELTA).init(); // ok
}

/// Look-alikes: values read at run time.
pub fn from_env(device: &Device) {
    let p: f64 = std::env::var("DROPOUT").ok().and_then(|s| s.parse().ok()).unwrap_or(BAD_DROPOUT);
    let _d = DropoutConfig::new(p).init(); // ok
    let eps: f64 = std::fs::read_to_string("eps.txt").unwrap().trim().parse().unwrap();
    let _rms = RmsNormConfig::new(64).with_epsilon(eps).init(device); // ok
}

// Decoder-only transformer block with RMS normalization.
use burn::nn::{LayerNormConfig, RmsNorm, RmsNormConfig};
use burn::prelude::*;

const EPS: f64 = -1e-6;

pub struct Block {
    pub attn_norm: RmsNorm,
    pub ffn_norm: RmsNorm,
}

mod reference {
    pub struct RmsNormConfig {
        pub epsilon: f64,
    }
    impl RmsNormConfig {
        pub fn new(_d: usize) -> Self {
            Self { epsilon: 1e-5 }
        }
        pub fn with_epsilon(mut self, epsilon: f64) -> Self {
            self.epsilon = epsilon;
            self
        }
        pub fn init(&self) -> f64 {
            self.epsilon
        }
    }
}

pub fn block(device: &Device, epsilon: f64) -> Block {
    let attn_norm = RmsNormConfig::new(4096).with_epsilon(0.0).init(device); // expect: rms-norm-epsilon-positive
    let ffn_norm = RmsNormConfig::new(4096).with_epsilon(epsilon).init(device); // ok
    Block { attn_norm, ffn_norm }
}

pub fn more(device: &Device) -> Vec<RmsNorm> {
    let a = RmsNormConfig::new(512).init(device); // ok
    let b = RmsNormConfig::new(512).with_epsilon(1e-6).init(device); // ok
    let c = RmsNormConfig::new(512).with_epsilon(EPS).init(device); // expect: rms-norm-epsilon-positive
    let cfg = RmsNormConfig { epsilon: -0.5, ..RmsNormConfig::new(256) };
    let d = cfg.init(device); // expect: rms-norm-epsilon-positive
    vec![a, b, c, d]
}

pub fn look_alikes(device: &Device) -> f64 {
    // LayerNorm has no positivity check on epsilon.
    let _ln = LayerNormConfig::new(512).with_epsilon(0.0).init(device); // ok
    reference::RmsNormConfig::new(512).with_epsilon(0.0).init() // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<RmsNorm> {
    let tiny = RmsNormConfig::new(64).with_epsilon(1e-12).init(device); // ok
    let negative = burn::nn::RmsNormConfig::new(64).with_epsilon(-1e-5).init(device); // expect: rms-norm-epsilon-positive
    let fixed_later = RmsNormConfig::new(64).with_epsilon(0.0).with_epsilon(1e-6).init(device); // ok
    vec![tiny, negative, fixed_later]
}

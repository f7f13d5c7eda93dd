// Rotary embeddings configured from a checkpoint's hyper-parameters.
use burn::nn::{RotaryEncoding, RotaryEncodingConfig};
use burn::prelude::*;

const ROPE_THETA: f32 = 0.0;

pub struct Hparams {
    pub rope_theta: f32,
}

struct RotaryEncodingConfigLocal {
    theta: f32,
}

impl RotaryEncodingConfigLocal {
    fn with_theta(mut self, theta: f32) -> Self {
        self.theta = theta;
        self
    }
}

pub fn rope_layers(device: &Device, hp: &Hparams) -> Vec<RotaryEncoding> {
    let a = RotaryEncodingConfig::new(4096, 128).init(device); // ok
    let b = RotaryEncodingConfig::new(4096, 128).with_theta(500_000.0).init(device); // ok
    let c = RotaryEncodingConfig::new(4096, 128).with_theta(0.0).init(device); // expect: rotary-encoding-theta-positive
    let d = RotaryEncodingConfig::new(4096, 128).with_theta(hp.rope_theta).init(device); // ok
    let e = RotaryEncodingConfig::new(2048, 64).with_theta(-10_000.0).init(device); // expect: rotary-encoding-theta-positive
    let cfg = RotaryEncodingConfig::new(2048, 64).with_theta(ROPE_THETA);
    let f = cfg.init(device); // expect: rotary-encoding-theta-positive
    vec![a, b, c, d, e, f]
}

pub fn look_alike() -> f32 {
    RotaryEncodingConfigLocal { theta: 1.0 }.with_theta(0.0).theta // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<RotaryEncoding> {
    let a = RotaryEncodingConfig::new(4096, 128).with_theta(-1.0).init_with_frequency_scaling(|f| f, device); // expect: rotary-encoding-theta-positive
    let b = burn::nn::RotaryEncodingConfig::new(4096, 128).with_theta(1.0).init(device); // ok
    // The odd d_model panics first, with the other rule's message.
    let c = RotaryEncodingConfig::new(4096, 127).with_theta(0.0).init(device); // expect: rotary-encoding-d-model-even
    vec![a, b, c]
}

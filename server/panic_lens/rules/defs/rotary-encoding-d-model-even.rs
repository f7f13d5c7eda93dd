// Llama-style attention with rotary position embeddings.
use burn::nn::{PositionalEncodingConfig, RotaryEncoding, RotaryEncodingConfig};
use burn::prelude::*;

const MAX_SEQ: usize = 2048;
const HEAD_DIM: usize = 96 / 5 * 5;

mod rope {
    pub struct RotaryEncodingConfig {
        pub d_model: usize,
    }
    impl RotaryEncodingConfig {
        pub fn new(_max_len: usize, d_model: usize) -> Self {
            Self { d_model }
        }
        pub fn init(&self) -> usize {
            self.d_model
        }
    }
}

pub fn rotary(device: &Device, head_dim: usize) -> Vec<RotaryEncoding> {
    let a = RotaryEncodingConfig::new(MAX_SEQ, 64).init(device); // ok
    let b = RotaryEncodingConfig::new(MAX_SEQ, 65).init(device); // expect: rotary-encoding-d-model-even
    let c = RotaryEncodingConfig::new(64, 2047).init(device); // expect: rotary-encoding-d-model-even
    let d = RotaryEncodingConfig::new(MAX_SEQ, head_dim).init(device); // ok
    let e = RotaryEncodingConfig::new(MAX_SEQ, HEAD_DIM).init_with_frequency_scaling(|f| f.div_scalar(8.0), device); // expect: rotary-encoding-d-model-even
    let cfg = RotaryEncodingConfig::new(4096, 128).with_theta(500_000.0);
    let f = cfg.init(device); // ok
    vec![a, b, c, d, e, f]
}

pub fn look_alikes(device: &Device) -> usize {
    let _pe = PositionalEncodingConfig::new(64).init(device); // ok
    rope::RotaryEncodingConfig::new(MAX_SEQ, 65).init() // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<RotaryEncoding> {
    let a = burn::nn::RotaryEncodingConfig::new(1024, 63).with_theta(10_000.0).init(device); // expect: rotary-encoding-d-model-even
    let b = RotaryEncodingConfig { d_model: 64, ..RotaryEncodingConfig::new(1024, 63) }.init(device); // ok
    let cfg = RotaryEncodingConfig { d_model: 129, ..RotaryEncodingConfig::new(1024, 128) };
    let c = cfg.init_with_frequency_scaling(|f| f, device); // expect: rotary-encoding-d-model-even
    vec![a, b, c]
}

// Long-context encoder: the sinusoid table must cover the whole context.
use burn::nn::{generate_sinusoids, PositionalEncoding, PositionalEncodingConfig};
use burn::prelude::*;

const CONTEXT: usize = 16_384;

pub struct PositionalEncodingConfigLocal {
    pub max_sequence_size: usize,
}

impl PositionalEncodingConfigLocal {
    pub fn with_max_sequence_size(mut self, n: usize) -> Self {
        self.max_sequence_size = n;
        self
    }
}

pub fn encoders(device: &Device, context: usize) -> Vec<PositionalEncoding> {
    let a = PositionalEncodingConfig::new(512).init(device); // ok
    let b = PositionalEncodingConfig::new(512).with_max_sequence_size(CONTEXT).init(device); // expect: positional-encoding-timescale-below-length
    let c = PositionalEncodingConfig::new(512).with_max_sequence_size(CONTEXT).with_max_timescale(20_000).init(device); // ok
    let d = PositionalEncodingConfig::new(512).with_max_timescale(1_000).init(device); // expect: positional-encoding-timescale-below-length
    let e = PositionalEncodingConfig::new(512).with_max_sequence_size(context).init(device); // ok
    let cfg = PositionalEncodingConfig::new(256).with_max_sequence_size(10_000);
    let f = cfg.init(device); // ok
    vec![a, b, c, d, e, f]
}

pub fn tables(device: &Device) -> Tensor<2> {
    let _short = generate_sinusoids(1_000, 64, 10_000, device); // ok
    generate_sinusoids(4_096, 64, 1_024, device) // expect: positional-encoding-timescale-below-length
}

pub fn look_alike() -> usize {
    PositionalEncodingConfigLocal { max_sequence_size: 0 }.with_max_sequence_size(CONTEXT).max_sequence_size // ok
}

// Lines added with the rule file.
pub fn more(device: &Device, d_model: usize) -> Vec<PositionalEncoding> {
    // d_model is unknown, but only an odd one would panic first, and it would panic anyway.
    let a = PositionalEncodingConfig::new(d_model).with_max_sequence_size(20_000).init(device); // expect: positional-encoding-timescale-below-length
    // An odd d_model panics first, with the other rule's message.
    let b = PositionalEncodingConfig::new(511).with_max_sequence_size(20_000).init(device); // expect: positional-encoding-d-model-even
    let c = PositionalEncodingConfig::new(512).with_max_sequence_size(10_000).with_max_timescale(10_000).init(device); // ok
    let d = burn::nn::PositionalEncodingConfig { max_timescale: 100, ..PositionalEncodingConfig::new(64) }.init(device); // expect: positional-encoding-timescale-below-length
    vec![a, b, c, d]
}

// Sinusoidal positions for a small sequence model.
use burn::nn::{generate_sinusoids, PositionalEncoding, PositionalEncodingConfig, RotaryEncodingConfig};
use burn::prelude::*;

const D_MODEL: usize = 3 * 85;

fn generate_sinusoids_local(length: usize, d_model: usize) -> Vec<f32> {
    vec![0.0; length * d_model]
}

pub fn encodings(device: &Device, width: usize) -> Vec<PositionalEncoding> {
    let a = PositionalEncodingConfig::new(256).init(device); // ok
    let b = PositionalEncodingConfig::new(255).init(device); // expect: positional-encoding-d-model-even
    let c = PositionalEncodingConfig::new(D_MODEL).with_max_sequence_size(512).init(device); // expect: positional-encoding-d-model-even
    let d = PositionalEncodingConfig::new(width).init(device); // ok
    vec![a, b, c, d]
}

pub fn tables(device: &Device) -> Vec<Tensor<2>> {
    let t1 = generate_sinusoids(128, 64, 10_000, device); // ok
    let t2 = generate_sinusoids(128, 33, 10_000, device); // expect: positional-encoding-d-model-even
    vec![t1, t2]
}

pub fn look_alikes(device: &Device) -> Vec<f32> {
    let _rope = RotaryEncodingConfig::new(512, 64).init(device); // ok
    generate_sinusoids_local(128, 33) // ok
}

// Lines added with the rule file.
pub fn more(device: &Device, length: usize) -> Vec<Tensor<2>> {
    let _pe = burn::nn::PositionalEncodingConfig::new(127).init(device); // expect: positional-encoding-d-model-even
    let _pe_ok = PositionalEncodingConfig { d_model: 128, ..PositionalEncodingConfig::new(127) }.init(device); // ok
    let a = burn::nn::generate_sinusoids(length, 17, 10_000, device); // expect: positional-encoding-d-model-even
    let b = generate_sinusoids(length, 16, 10_000, device); // ok
    vec![a, b]
}

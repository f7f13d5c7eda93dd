// A language model whose token table and extra parameters are Kaiming-initialized.
use burn::module::{Initializer, Param};
use burn::nn::{Embedding, EmbeddingConfig, Linear, LinearConfig};
use burn::prelude::*;

const HE: Initializer = Initializer::KaimingNormal { gain: 1.4142, fan_out_only: false };

pub struct Lm {
    pub tokens: Embedding,
    pub head: Linear,
}

pub fn build(device: &Device, vocab: usize, init: Initializer) -> Vec<Embedding> {
    let a = EmbeddingConfig::new(vocab, 256).with_initializer(HE).init(device); // expect: initializer-kaiming-without-fan
    let b = EmbeddingConfig::new(vocab, 256)
        .with_initializer(Initializer::KaimingUniform { gain: 1.0, fan_out_only: true })
        .init(device); // expect: initializer-kaiming-without-fan
    let c = EmbeddingConfig::new(vocab, 256).init(device); // ok (Normal, the default)
    let d = EmbeddingConfig::new(vocab, 256).with_initializer(init).init(device); // ok (not known here)
    let e = EmbeddingConfig::new(vocab, 256)
        .with_initializer(Initializer::Uniform { min: -0.1, max: 0.1 })
        .init(device); // ok
    vec![a, b, c, d, e]
}

pub fn head(device: &Device) -> Linear {
    // Linear passes both fans: Kaiming, its default, is fine.
    LinearConfig::new(256, 32).with_initializer(HE).init(device) // ok
}

pub fn extra(device: &Device, fan: Option<usize>) -> Vec<Param<Tensor<2>>> {
    let w1 = HE.init([256, 64], device); // expect: initializer-kaiming-without-fan
    let w2 = HE.init_with([256, 64], Some(256), Some(64), device); // ok
    let w3 = HE.init_with([256, 64], None, None, device); // expect: initializer-kaiming-without-fan
    let w4 = HE.init_with([256, 64], fan, None, device); // ok (fan_in not known here)
    let w5 = Initializer::Zeros.init([256, 64], device); // ok
    let w6 = Initializer::Normal { mean: 0.0, std: 0.02 }.init([256, 64], device); // ok
    // fan_out_only reads fan_out alone, and the others fan_in alone.
    let fan_out_only = Initializer::KaimingUniform { gain: 1.0, fan_out_only: true };
    let w7 = fan_out_only.init_with([256, 64], Some(256), None, device); // expect: initializer-kaiming-without-fan
    let w8 = fan_out_only.init_with([256, 64], None, Some(64), device); // ok
    let w9 = HE.init_with([256, 64], None, Some(64), device); // expect: initializer-kaiming-without-fan
    let w10 = HE.init_with([256, 64], Some(256), None, device); // ok
    vec![w1, w2, w3, w4, w5, w6, w7, w8, w9, w10]
}

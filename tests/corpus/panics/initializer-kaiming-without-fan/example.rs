// Token embeddings and a custom parameter with Kaiming initialization.
// Initialization is lazy: the panic fires at the first use, the flagged line fixes the values.
use burn::module::{Initializer, Param};
use burn::nn::{Embedding, EmbeddingConfig, LinearConfig};
use burn::prelude::*;

const KAIMING: Initializer = Initializer::KaimingUniform { gain: 1.0, fan_out_only: false };

mod weights {
    pub enum Initializer {
        KaimingUniform { gain: f64, fan_out_only: bool },
    }
    impl Initializer {
        pub fn init(&self, shape: [usize; 2]) -> usize {
            shape[0] * shape[1]
        }
    }
}

pub fn embeddings(device: &Device, init: Initializer) -> Vec<Embedding> {
    let a = EmbeddingConfig::new(30_000, 512).init(device); // ok
    let b = EmbeddingConfig::new(30_000, 512).with_initializer(Initializer::KaimingUniform { gain: 1.0, fan_out_only: false }).init(device); // expect: initializer-kaiming-without-fan
    let c = EmbeddingConfig::new(30_000, 512).with_initializer(init).init(device); // ok
    let d = EmbeddingConfig::new(1_000, 64).with_initializer(KAIMING).init(device); // expect: initializer-kaiming-without-fan
    let e = EmbeddingConfig::new(1_000, 64).with_initializer(Initializer::Normal { mean: 0.0, std: 0.02 }).init(device); // ok
    vec![a, b, c, d, e]
}

pub fn custom(device: &Device) -> Vec<Param<Tensor<2>>> {
    let p1 = Initializer::KaimingNormal { gain: 2f64.sqrt(), fan_out_only: false }.init([128, 64], device); // expect: initializer-kaiming-without-fan
    let p2 = Initializer::KaimingNormal { gain: 2f64.sqrt(), fan_out_only: false }.init_with([128, 64], Some(128), Some(64), device); // ok
    let p3 = Initializer::KaimingUniform { gain: 1.0, fan_out_only: true }.init_with([128, 64], Some(128), None, device); // expect: initializer-kaiming-without-fan
    let _fc = LinearConfig::new(128, 64).with_initializer(KAIMING).init(device); // ok
    let _local = weights::Initializer::KaimingUniform { gain: 1.0, fan_out_only: false }.init([128, 64]); // ok
    vec![p1, p2, p3]
}

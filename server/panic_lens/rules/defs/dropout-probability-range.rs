// Text classifier: dropout rates in several places.
use burn::nn::attention::MultiHeadAttentionConfig;
use burn::nn::transformer::TransformerEncoderConfig;
use burn::nn::{Dropout, DropoutConfig, GaussianNoiseConfig};
use burn::prelude::*;

const DROP_PERCENT: f64 = 10.0;

mod keras_like {
    pub struct DropoutConfig {
        pub rate: f64,
    }
    impl DropoutConfig {
        pub fn new(rate: f64) -> Self {
            Self { rate }
        }
        pub fn init(&self) -> f64 {
            self.rate / 100.0
        }
    }
}

pub fn head_dropout() -> Dropout {
    DropoutConfig::new(50.0).init() // expect: dropout-probability-range
}

pub fn layers(device: &Device, rate: f64) {
    let _d1 = DropoutConfig::new(0.25).init(); // ok
    let _d2 = DropoutConfig::new(1.0).init(); // ok
    let _d3 = DropoutConfig::new(rate).init(); // ok
    let _d4 = DropoutConfig::new(DROP_PERCENT).init(); // expect: dropout-probability-range
    let _mha = MultiHeadAttentionConfig::new(512, 8).with_dropout(1.5).init(device); // expect: dropout-probability-range
    let _mha_ok = MultiHeadAttentionConfig::new(512, 8).init(device); // ok
    let enc = TransformerEncoderConfig::new(256, 1024, 8, 4).with_dropout(-0.1);
    let _encoder = enc.init(device); // expect: dropout-probability-range
}

pub fn look_alikes() -> f64 {
    let _noise = GaussianNoiseConfig::new(2.0).init(); // ok
    keras_like::DropoutConfig::new(50.0).init() // ok
}

// Lines added with the rule file: every config that builds a Dropout.
pub fn more(device: &Device) {
    use burn::nn::attention::CrossAttentionConfig;
    use burn::nn::transformer::{PositionWiseFeedForwardConfig, TransformerDecoderConfig};
    let _ff = PositionWiseFeedForwardConfig::new(512, 2048).with_dropout(10.0).init(device); // expect: dropout-probability-range
    let _ff_ok = PositionWiseFeedForwardConfig::new(512, 2048).with_dropout(0.0).init(device); // ok
    let _x = CrossAttentionConfig::new(512, 768, 8, 8, 64).with_dropout(20.0).init(device); // expect: dropout-probability-range
    let _dec = TransformerDecoderConfig::new(256, 1024, 8, 6).with_dropout(30.0).init(device); // expect: dropout-probability-range
    // No layer is built, so no Dropout either.
    let _empty = TransformerDecoderConfig::new(256, 1024, 8, 0).with_dropout(30.0).init(device); // ok
    let _literal = DropoutConfig { prob: -0.5 }.init(); // expect: dropout-probability-range
    let _edge = DropoutConfig::new(0.0).init(); // ok
}

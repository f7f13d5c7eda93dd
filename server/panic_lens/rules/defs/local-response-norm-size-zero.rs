// AlexNet-style feature extractor with local response normalization.
use burn::nn::{LocalResponseNorm, LocalResponseNormConfig, RmsNormConfig};
use burn::prelude::*;

const WINDOW: usize = 0;

mod classic {
    pub struct LocalResponseNormConfig {
        pub size: usize,
    }
    impl LocalResponseNormConfig {
        pub fn new(size: usize) -> Self {
            Self { size }
        }
        pub fn init(&self) -> usize {
            self.size
        }
    }
}

pub fn lrn_layers(window: usize) -> Vec<LocalResponseNorm> {
    let a = LocalResponseNormConfig::new(5).init(); // ok
    let b = LocalResponseNormConfig::new(0).init(); // expect: local-response-norm-size-zero
    let c = LocalResponseNormConfig::new(window).init(); // ok
    let d = LocalResponseNormConfig::new(WINDOW).with_alpha(1e-4).init(); // expect: local-response-norm-size-zero
    let e = LocalResponseNormConfig::new(1).with_beta(0.5).init(); // ok
    vec![a, b, c, d, e]
}

pub fn look_alikes(device: &Device) -> usize {
    let _rms = RmsNormConfig::new(64).init(device); // ok
    classic::LocalResponseNormConfig::new(0).init() // ok
}

// Lines added with the rule file.
pub fn more() -> Vec<LocalResponseNorm> {
    let a = burn::nn::LocalResponseNormConfig::new(0).with_k(2.0).init(); // expect: local-response-norm-size-zero
    let b = LocalResponseNormConfig { size: 3, ..LocalResponseNormConfig::new(0) }.init(); // ok
    let c = LocalResponseNormConfig { size: 0, ..LocalResponseNormConfig::new(5) }.init(); // expect: local-response-norm-size-zero
    vec![a, b, c]
}

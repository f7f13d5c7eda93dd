// Robust regression head.
use burn::nn::loss::{HuberLoss, HuberLossConfig, SmoothL1LossConfig};
use burn::prelude::*;

const DELTA: f32 = -0.5;

mod robust {
    pub struct HuberLossConfig {
        pub delta: f32,
    }
    impl HuberLossConfig {
        pub fn new(delta: f32) -> Self {
            Self { delta }
        }
        pub fn init(&self) -> f32 {
            self.delta.abs()
        }
    }
}

pub fn huber_losses(delta_from_data: f32) -> Vec<HuberLoss> {
    let a = HuberLossConfig::new(1.0).init(); // ok
    let b = HuberLossConfig::new(0.0).init(); // ok
    let c = HuberLossConfig::new(-1.0).init(); // expect: huber-delta-negative
    let d = HuberLossConfig::new(delta_from_data).init(); // ok
    let e = HuberLossConfig::new(DELTA).init(); // expect: huber-delta-negative
    let cfg = HuberLossConfig { delta: 0.5 - 2.0 };
    let f = cfg.init(); // expect: huber-delta-negative
    vec![a, b, c, d, e, f]
}

pub fn look_alikes(_device: &Device) -> f32 {
    let _l1 = SmoothL1LossConfig::new().with_beta(0.5).init(); // ok
    robust::HuberLossConfig::new(-1.0).init() // ok
}

// Lines added with the rule file.
pub fn more() -> Vec<HuberLoss> {
    let a = burn::nn::loss::HuberLossConfig::new(-0.1).init(); // expect: huber-delta-negative
    let b = HuberLossConfig { delta: 2.0 }.init(); // ok
    vec![a, b]
}

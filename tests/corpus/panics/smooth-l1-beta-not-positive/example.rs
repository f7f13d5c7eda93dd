// Box regression head: robust losses for the offsets.
use burn::nn::loss::{HuberLossConfig, SmoothL1Loss, SmoothL1LossConfig};

const PURE_L1_BETA: f32 = 0.0;

mod detection {
    pub struct SmoothL1LossConfig {
        pub beta: f32,
    }
    impl SmoothL1LossConfig {
        pub fn new() -> Self {
            Self { beta: 1.0 }
        }
        pub fn with_beta(mut self, beta: f32) -> Self {
            self.beta = beta;
            self
        }
        pub fn init(&self) -> f32 {
            self.beta
        }
    }
}

pub fn box_losses(beta_from_sweep: f32) -> Vec<SmoothL1Loss> {
    let a = SmoothL1LossConfig::new().init(); // ok
    let b = SmoothL1LossConfig::new().with_beta(0.11).init(); // ok
    let c = SmoothL1LossConfig::new().with_beta(0.0).init(); // expect: smooth-l1-beta-not-positive
    let d = SmoothL1LossConfig::new().with_beta(beta_from_sweep).init(); // ok
    let e = SmoothL1LossConfig::new().with_beta(PURE_L1_BETA).init(); // expect: smooth-l1-beta-not-positive
    let cfg = SmoothL1LossConfig { beta: -0.5 };
    let f = cfg.init(); // expect: smooth-l1-beta-not-positive
    vec![a, b, c, d, e, f]
}

pub fn look_alikes() -> f32 {
    let _huber = HuberLossConfig::new(0.0).init(); // ok
    detection::SmoothL1LossConfig::new().with_beta(0.0).init() // ok
}

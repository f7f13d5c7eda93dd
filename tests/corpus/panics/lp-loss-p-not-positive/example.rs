// Reconstruction losses of an autoencoder, one per norm order.
use burn::nn::loss::{LpLoss, LpLossConfig, SmoothL1LossConfig};

const SPARSE_ORDER: f64 = 0.0;

mod metrics {
    pub struct LpLossConfig {
        pub p: f64,
    }
    impl LpLossConfig {
        pub fn new(p: f64) -> Self {
            Self { p }
        }
        pub fn init(&self) -> f64 {
            self.p
        }
    }
}

pub fn reconstruction_losses(order: f64) -> Vec<LpLoss> {
    let a = LpLossConfig::new(1.0).init(); // ok
    let b = LpLossConfig::new(2.0).init(); // ok
    let c = LpLossConfig::new(0.0).init(); // expect: lp-loss-p-not-positive
    let d = LpLossConfig::new(order).init(); // ok
    let e = LpLossConfig::new(SPARSE_ORDER).init(); // expect: lp-loss-p-not-positive
    let f = LpLossConfig::new(1.0 - 2.0).init(); // expect: lp-loss-p-not-positive
    let g = LpLossConfig::l1(); // ok
    vec![a, b, c, d, e, f, g]
}

pub fn look_alikes() -> f64 {
    let _smooth = SmoothL1LossConfig::new().with_beta(1.0).init(); // ok
    metrics::LpLossConfig::new(0.0).init() // ok
}

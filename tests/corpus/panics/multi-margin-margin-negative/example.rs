// Multi-class hinge loss for a small classifier.
use burn::nn::loss::{MarginRankingLossConfig, MultiMarginLoss, MultiMarginLossConfig};

const MARGIN: f64 = -1.0;

mod svm {
    pub struct MultiMarginLossConfig {
        pub margin: f64,
    }
    impl MultiMarginLossConfig {
        pub fn new() -> Self {
            Self { margin: 1.0 }
        }
        pub fn with_margin(mut self, margin: f64) -> Self {
            self.margin = margin;
            self
        }
        pub fn init(&self) -> f64 {
            self.margin
        }
    }
}

pub fn hinge_losses(margin: f64) -> Vec<MultiMarginLoss> {
    let a = MultiMarginLossConfig::new().init(); // ok
    let b = MultiMarginLossConfig::new().with_margin(0.0).with_p(2).init(); // ok
    let c = MultiMarginLossConfig::new().with_margin(-0.5).init(); // expect: multi-margin-margin-negative
    let d = MultiMarginLossConfig::new().with_margin(margin).init(); // ok
    let e = MultiMarginLossConfig::new().with_p(2).with_margin(MARGIN).init(); // expect: multi-margin-margin-negative
    let cfg = MultiMarginLossConfig { margin: -2.0, p: 1 };
    let f = cfg.init(); // expect: multi-margin-margin-negative
    vec![a, b, c, d, e, f]
}

pub fn look_alikes() -> f64 {
    let _r = MarginRankingLossConfig::new().with_margin(0.0).init(); // ok
    svm::MultiMarginLossConfig::new().with_margin(-1.0).init() // ok
}

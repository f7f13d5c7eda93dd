// Pairwise ranking of search results.
use burn::nn::loss::{MarginRankingLoss, MarginRankingLossConfig, MultiMarginLossConfig};

const SLACK: f64 = -0.1;

mod ranking {
    pub struct MarginRankingLossConfig {
        pub margin: f64,
    }
    impl MarginRankingLossConfig {
        pub fn new() -> Self {
            Self { margin: 0.0 }
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

pub fn ranking_losses(margin: f64) -> Vec<MarginRankingLoss> {
    let a = MarginRankingLossConfig::new().init(); // ok
    let b = MarginRankingLossConfig::new().with_margin(0.5).init(); // ok
    let c = MarginRankingLossConfig::new().with_margin(-0.5).init(); // expect: margin-ranking-margin-negative
    let d = MarginRankingLossConfig::new().with_margin(margin).init(); // ok
    let e = MarginRankingLossConfig::new().with_margin(SLACK).init(); // expect: margin-ranking-margin-negative
    let cfg = MarginRankingLossConfig { margin: 0.2 - 0.7 };
    let f = cfg.init(); // expect: margin-ranking-margin-negative
    vec![a, b, c, d, e, f]
}

pub fn look_alikes() -> f64 {
    let _m = MultiMarginLossConfig::new().with_margin(0.0).init(); // ok
    ranking::MarginRankingLossConfig::new().with_margin(-1.0).init() // ok
}

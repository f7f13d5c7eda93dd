// Randomized leaky ReLU for a small convnet.
use burn::nn::activation::{RRelu, RReluConfig};
use burn::nn::LeakyReluConfig;

const LOWER: f64 = 0.4;

mod act {
    pub struct RReluConfig {
        pub lower: f64,
        pub upper: f64,
    }
    impl RReluConfig {
        pub fn new() -> Self {
            Self { lower: 0.125, upper: 1.0 / 3.0 }
        }
        pub fn with_lower(mut self, lower: f64) -> Self {
            self.lower = lower;
            self
        }
        pub fn init(&self) -> f64 {
            self.upper - self.lower
        }
    }
}

pub fn activations(lower: f64, upper: f64) -> Vec<RRelu> {
    let a = RReluConfig::new().init(); // ok
    let b = RReluConfig::new().with_lower(0.1).with_upper(0.3).init(); // ok
    let c = RReluConfig::new().with_lower(0.5).init(); // expect: rrelu-lower-above-upper
    let d = RReluConfig::new().with_lower(lower).with_upper(upper).init(); // ok
    let e = RReluConfig::new().with_upper(0.2).with_lower(LOWER).init(); // expect: rrelu-lower-above-upper
    let cfg = RReluConfig { lower: 0.3, upper: 0.1 };
    let f = cfg.init(); // expect: rrelu-lower-above-upper
    vec![a, b, c, d, e, f]
}

pub fn look_alikes() -> f64 {
    let _leaky = LeakyReluConfig::new().with_negative_slope(0.5).init(); // ok
    act::RReluConfig::new().with_lower(0.9).init() // ok
}

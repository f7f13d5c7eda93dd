// Classification losses with label smoothing.
use burn::nn::loss::{BinaryCrossEntropyLossConfig, CrossEntropyLoss, CrossEntropyLossConfig};
use burn::prelude::*;

const SMOOTHING_PERCENT: f32 = 10.0;

mod mine {
    pub struct CrossEntropyLossConfig {
        pub smoothing: Option<f32>,
    }
    impl CrossEntropyLossConfig {
        pub fn new() -> Self {
            Self { smoothing: None }
        }
        pub fn with_smoothing(mut self, smoothing: Option<f32>) -> Self {
            self.smoothing = smoothing;
            self
        }
        pub fn init(&self) -> f32 {
            self.smoothing.unwrap_or(0.0) / 100.0
        }
    }
}

pub fn losses(device: &Device, smoothing: Option<f32>) -> Vec<CrossEntropyLoss> {
    let plain = CrossEntropyLossConfig::new().init(device); // ok
    let smooth = CrossEntropyLossConfig::new().with_smoothing(Some(0.1)).init(device); // ok
    let too_much = CrossEntropyLossConfig::new().with_smoothing(Some(1.5)).init(device); // expect: cross-entropy-smoothing-range
    let percent = CrossEntropyLossConfig::new().with_smoothing(Some(SMOOTHING_PERCENT)).init(device); // expect: cross-entropy-smoothing-range
    let unknown = CrossEntropyLossConfig::new().with_smoothing(smoothing).init(device); // ok
    let cfg = CrossEntropyLossConfig::new().with_logits(true).with_smoothing(Some(-0.1));
    let negative = cfg.init(device); // expect: cross-entropy-smoothing-range
    vec![plain, smooth, too_much, percent, unknown, negative]
}

pub fn look_alikes(device: &Device) -> f32 {
    let _bce = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(0.05)).init(device); // ok
    mine::CrossEntropyLossConfig::new().with_smoothing(Some(10.0)).init() // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<CrossEntropyLoss> {
    let edge = CrossEntropyLossConfig::new().with_smoothing(Some(1.0)).init(device); // ok
    let none = CrossEntropyLossConfig::new().with_smoothing(None).init(device); // ok
    let literal = CrossEntropyLossConfig { smoothing: Some(2.0), ..CrossEntropyLossConfig::new() }.init(device); // expect: cross-entropy-smoothing-range
    let full = burn::nn::loss::CrossEntropyLossConfig::new().with_smoothing(Some(-1.0)).init(device); // expect: cross-entropy-smoothing-range
    vec![edge, none, literal, full]
}

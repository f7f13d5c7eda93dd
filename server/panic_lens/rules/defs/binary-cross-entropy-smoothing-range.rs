// Multi-label tagging with a smoothed binary cross-entropy.
use burn::nn::loss::{BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig, CrossEntropyLossConfig};
use burn::prelude::*;

const SMOOTH: f32 = 5.0;

pub struct BinaryCrossEntropyLossConfigLocal {
    pub smoothing: Option<f32>,
}

impl BinaryCrossEntropyLossConfigLocal {
    pub fn with_smoothing(mut self, smoothing: Option<f32>) -> Self {
        self.smoothing = smoothing;
        self
    }
}

pub fn bce_losses(device: &Device, alpha: f32) -> Vec<BinaryCrossEntropyLoss> {
    let a = BinaryCrossEntropyLossConfig::new().with_logits(true).init(device); // ok
    let b = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(0.05)).init(device); // ok
    let c = BinaryCrossEntropyLossConfig::new().with_logits(true).with_smoothing(Some(2.0)).init(device); // expect: binary-cross-entropy-smoothing-range
    let d = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(alpha)).init(device); // ok
    let e = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(SMOOTH)).init(device); // expect: binary-cross-entropy-smoothing-range
    let f = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(1.0)).init(device); // ok
    vec![a, b, c, d, e, f]
}

pub fn look_alikes(device: &Device) -> Option<f32> {
    let _ce = CrossEntropyLossConfig::new().with_smoothing(Some(0.2)).init(device); // ok
    BinaryCrossEntropyLossConfigLocal { smoothing: None }.with_smoothing(Some(2.0)).smoothing // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<BinaryCrossEntropyLoss> {
    let a = burn::nn::loss::BinaryCrossEntropyLossConfig::new().with_smoothing(Some(-0.1)).init(device); // expect: binary-cross-entropy-smoothing-range
    let b = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(0.0)).init(device); // ok
    let c = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(2.0)).with_smoothing(None).init(device); // ok
    vec![a, b, c]
}

// Multi-label tagging: per-label weights for the binary cross-entropy.
use burn::nn::loss::{BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig, CrossEntropyLossConfig};
use burn::prelude::*;

const RARE_TAG_WEIGHT: f32 = 0.0;

mod tagging {
    pub struct BinaryCrossEntropyLossConfig {
        pub weights: Option<Vec<f32>>,
    }
    impl BinaryCrossEntropyLossConfig {
        pub fn new() -> Self {
            Self { weights: None }
        }
        pub fn with_weights(mut self, weights: Option<Vec<f32>>) -> Self {
            self.weights = weights;
            self
        }
        pub fn init(&self) -> usize {
            self.weights.as_ref().map_or(0, |w| w.len())
        }
    }
}

pub fn tag_losses(device: &Device, from_counts: Vec<f32>) -> Vec<BinaryCrossEntropyLoss> {
    let a = BinaryCrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 3.0, 0.5])).init(device); // ok
    let b = BinaryCrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 0.0, 2.0])).init(device); // expect: binary-cross-entropy-weights-positive
    let c = BinaryCrossEntropyLossConfig::new().with_weights(Some(from_counts)).init(device); // ok
    let d = BinaryCrossEntropyLossConfig::new().with_logits(true).with_weights(Some(vec![RARE_TAG_WEIGHT, 1.0])).init(device); // expect: binary-cross-entropy-weights-positive
    let cfg = BinaryCrossEntropyLossConfig::new().with_weights(Some(vec![0.5, -1.0]));
    let e = cfg.init(device); // expect: binary-cross-entropy-weights-positive
    let f = BinaryCrossEntropyLossConfig::new().with_weights(None).init(device); // ok
    vec![a, b, c, d, e, f]
}

pub fn look_alikes(device: &Device) -> usize {
    let _ce = CrossEntropyLossConfig::new().with_smoothing(Some(0.1)).init(device); // ok
    tagging::BinaryCrossEntropyLossConfig::new().with_weights(Some(vec![0.0, 1.0])).init() // ok
}

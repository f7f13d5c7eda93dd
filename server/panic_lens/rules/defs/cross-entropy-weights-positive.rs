// Imbalanced segmentation: class weights for the loss.
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig};
use burn::prelude::*;

const BACKGROUND_WEIGHT: f32 = 0.0;

struct CrossEntropyLossConfigLocal {
    weights: Option<Vec<f32>>,
}

impl CrossEntropyLossConfigLocal {
    fn with_weights(mut self, weights: Option<Vec<f32>>) -> Self {
        self.weights = weights;
        self
    }
}

pub fn weighted(device: &Device, computed: Vec<f32>) -> Vec<CrossEntropyLoss> {
    let a = CrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 2.5, 4.0])).init(device); // ok
    let b = CrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 0.0, 2.0])).init(device); // expect: cross-entropy-weights-positive
    let c = CrossEntropyLossConfig::new().with_weights(Some(computed)).init(device); // ok
    let d = CrossEntropyLossConfig::new().with_weights(Some(vec![BACKGROUND_WEIGHT, 1.0])).init(device); // expect: cross-entropy-weights-positive
    let e = CrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 1.0, 1.0])).with_pad_tokens(Some(vec![0])).init(device); // ok
    let cfg = CrossEntropyLossConfig::new().with_weights(Some(vec![0.5, -1.0]));
    let f = cfg.init(device); // expect: cross-entropy-weights-positive
    let g = CrossEntropyLossConfig::new().with_weights(None).init(device); // ok
    vec![a, b, c, d, e, f, g]
}

pub fn look_alike() -> usize {
    let local = CrossEntropyLossConfigLocal { weights: None }.with_weights(Some(vec![1.0, 0.0])); // ok
    local.weights.map_or(0, |w| w.len())
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<CrossEntropyLoss> {
    let a = burn::nn::loss::CrossEntropyLossConfig::new().with_weights(Some(vec![-0.5, 1.0])).init(device); // expect: cross-entropy-weights-positive
    let b = CrossEntropyLossConfig::new().with_weights(Some(vec![0.1, 0.2])).with_smoothing(Some(0.1)).init(device); // ok
    // The smoothing check runs first and panics with its own message.
    let c = CrossEntropyLossConfig::new().with_weights(Some(vec![0.0, 1.0])).with_smoothing(Some(5.0)).init(device); // expect: cross-entropy-smoothing-range
    vec![a, b, c]
}

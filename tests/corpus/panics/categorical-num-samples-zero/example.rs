// Sampling tokens from a language model's output distribution.
use burn::prelude::*;

const DRAWS: usize = 0;

mod local {
    pub struct Dist(pub Vec<f32>);

    impl Dist {
        pub fn categorical(&self, n: usize) -> Vec<usize> {
            (0..n).map(|i| i % self.0.len().max(1)).collect()
        }
    }
}

pub fn sample(probs: Tensor<2>, budget: usize) -> Vec<Tensor<2, Int>> {
    vec![
        probs.clone().categorical(1), // ok
        probs.clone().categorical(0), // expect: categorical-num-samples-zero
        probs.clone().categorical(budget), // ok
        probs.clone().categorical(DRAWS), // expect: categorical-num-samples-zero
        probs.categorical(4), // ok
    ]
}

pub fn look_alikes(probs: Tensor<2>) -> usize {
    let _top = probs.argmax(1); // ok
    local::Dist(vec![0.5, 0.5]).categorical(0).len() // ok
}

// Space-to-depth stem of an image encoder.
// The panic fires at the first forward; the flagged line is the config that fixes the factor.
use burn::nn::{PixelShuffleConfig, PixelUnshuffle, PixelUnshuffleConfig};
use burn::prelude::*;

const PATCH: usize = 0;

mod stem {
    pub struct PixelUnshuffleConfig {
        pub downscale_factor: usize,
    }
    impl PixelUnshuffleConfig {
        pub fn new(downscale_factor: usize) -> Self {
            Self { downscale_factor }
        }
        pub fn init(&self) -> usize {
            self.downscale_factor
        }
    }
}

pub fn stems(patch: usize) -> Vec<PixelUnshuffle> {
    let a = PixelUnshuffleConfig::new(4).init(); // ok
    let b = PixelUnshuffleConfig::new(0).init(); // expect: pixel-unshuffle-downscale-factor-zero
    let c = PixelUnshuffleConfig::new(patch).init(); // ok
    let d = PixelUnshuffleConfig::new(PATCH).init(); // expect: pixel-unshuffle-downscale-factor-zero
    let e = PixelUnshuffleConfig::new(2 - 2).init(); // expect: pixel-unshuffle-downscale-factor-zero
    vec![a, b, c, d, e]
}

pub fn encode(stem: &PixelUnshuffle, x: Tensor<4>) -> Tensor<4> {
    stem.forward(x)
}

pub fn look_alikes() -> usize {
    let _up = PixelShuffleConfig::new(2).init(); // ok
    stem::PixelUnshuffleConfig::new(0).init() // ok
}

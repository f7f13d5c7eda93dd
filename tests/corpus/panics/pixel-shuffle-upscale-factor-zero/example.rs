// Super-resolution head (ESPCN-style sub-pixel convolution).
// The panic fires at the first forward; the flagged line is the config that fixes the factor.
use burn::nn::{PixelShuffle, PixelShuffleConfig, PixelUnshuffleConfig};
use burn::prelude::*;

const SCALE: usize = 0;

mod sr {
    pub struct PixelShuffleConfig {
        pub upscale_factor: usize,
    }
    impl PixelShuffleConfig {
        pub fn new(upscale_factor: usize) -> Self {
            Self { upscale_factor }
        }
        pub fn init(&self) -> usize {
            self.upscale_factor
        }
    }
}

pub fn heads(scale: usize) -> Vec<PixelShuffle> {
    let a = PixelShuffleConfig::new(2).init(); // ok
    let b = PixelShuffleConfig::new(0).init(); // expect: pixel-shuffle-upscale-factor-zero
    let c = PixelShuffleConfig::new(scale).init(); // ok
    let d = PixelShuffleConfig::new(SCALE).init(); // expect: pixel-shuffle-upscale-factor-zero
    let cfg = PixelShuffleConfig { upscale_factor: 3 };
    let e = cfg.init(); // ok
    vec![a, b, c, d, e]
}

pub fn upscale(head: &PixelShuffle, x: Tensor<4>) -> Tensor<4> {
    head.forward(x)
}

pub fn look_alikes() -> usize {
    let _down = PixelUnshuffleConfig::new(2).init(); // ok
    sr::PixelShuffleConfig::new(0).init() // ok
}

// Decoder of a segmentation network: upsampling layers.
// The panic fires at the first forward; the flagged line is the config that fixes the values.
use burn::nn::interpolate::{Interpolate1dConfig, Interpolate2d, Interpolate2dConfig, InterpolateMode};
use burn::prelude::*;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode as OpsMode, InterpolateOptions};

mod vision {
    pub struct Interpolate2dConfig {
        pub output_size: Option<[usize; 2]>,
    }
    impl Interpolate2dConfig {
        pub fn new() -> Self {
            Self { output_size: None }
        }
        pub fn init(self) -> Option<[usize; 2]> {
            self.output_size
        }
    }
}

pub struct Decoder {
    pub up: Vec<Interpolate2d>,
}

pub fn decoder(size: Option<[usize; 2]>) -> Decoder {
    let a = Interpolate2dConfig::new().with_scale_factor(Some([2.0, 2.0])).init(); // ok
    let b = Interpolate2dConfig::new().with_output_size(Some([64, 64])).with_mode(InterpolateMode::Linear).init(); // expect: interpolate-backward-mode
    let c = Interpolate2dConfig::new().with_mode(InterpolateMode::Linear).init(); // expect: interpolate2d-missing-output-size-and-scale
    let d = Interpolate2dConfig::new().with_output_size(Some([64, 64])).with_scale_factor(Some([2.0, 2.0])).init(); // expect: interpolate2d-missing-output-size-and-scale
    let e = Interpolate2dConfig::new().with_output_size(size).init(); // ok
    Decoder { up: vec![a, b, c, d, e] }
}

pub fn run(decoder: &Decoder, x: Tensor<4>) -> Tensor<4> {
    decoder.up.iter().fold(x, |x, up| up.forward(x))
}

pub fn look_alikes(x: Tensor<4>) -> Tensor<4> {
    let _local = vision::Interpolate2dConfig::new().init(); // ok
    let _one_d = Interpolate1dConfig::new().with_scale_factor(Some(2.0)).init(); // ok
    interpolate(x, [32, 32], InterpolateOptions::new(OpsMode::Nearest)) // ok
}

// Lines added with the rule file.
pub fn more() -> Vec<Interpolate2d> {
    let plain = burn::nn::interpolate::Interpolate2dConfig::new().init(); // expect: interpolate2d-missing-output-size-and-scale
    let cfg = Interpolate2dConfig::new().with_scale_factor(Some([2.0, 2.0]));
    let later = cfg.clone().with_scale_factor(None).init(); // expect: interpolate2d-missing-output-size-and-scale
    let fine = Interpolate2dConfig { output_size: Some([8, 8]), ..Interpolate2dConfig::new() }.init(); // ok
    vec![plain, later, fine]
}

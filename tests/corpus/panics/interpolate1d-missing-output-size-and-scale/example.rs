// Audio decoder: upsampling a 1-D feature sequence.
// The panic fires at the first forward; the flagged line is the config that fixes the values.
use burn::nn::interpolate::{Interpolate1d, Interpolate1dConfig, Interpolate2dConfig, InterpolateMode};
use burn::prelude::*;

mod audio {
    pub struct Interpolate1dConfig {
        pub output_size: Option<usize>,
    }
    impl Interpolate1dConfig {
        pub fn new() -> Self {
            Self { output_size: None }
        }
        pub fn init(self) -> Option<usize> {
            self.output_size
        }
    }
}

pub fn upsamplers(size: Option<usize>, scale: Option<f32>) -> Vec<Interpolate1d> {
    let a = Interpolate1dConfig::new().with_scale_factor(Some(2.0)).init(); // ok
    let b = Interpolate1dConfig::new().with_output_size(Some(160)).with_mode(InterpolateMode::Linear).init(); // ok
    let c = Interpolate1dConfig::new().with_mode(InterpolateMode::Cubic).init(); // expect: interpolate1d-missing-output-size-and-scale
    let d = Interpolate1dConfig::new().with_output_size(Some(160)).with_scale_factor(Some(4.0)).init(); // expect: interpolate1d-missing-output-size-and-scale
    let e = Interpolate1dConfig::new().with_output_size(size).with_scale_factor(scale).init(); // ok
    let f = Interpolate1dConfig::new().init(); // expect: interpolate1d-missing-output-size-and-scale
    vec![a, b, c, d, e, f]
}

pub fn run(layers: &[Interpolate1d], x: Tensor<3>) -> Tensor<3> {
    layers.iter().fold(x, |x, up| up.forward(x))
}

pub fn look_alikes() -> Option<usize> {
    let _two_d = Interpolate2dConfig::new().with_output_size(Some([8, 8])).init(); // ok
    audio::Interpolate1dConfig::new().init() // ok
}

//! The nn modules' own InterpolateMode (Linear, Cubic, Lanczos), with a glob and an alias.

use burn::nn::interpolate::*;
use burn::nn::interpolate::InterpolateMode as Mode;
use burn::prelude::*;

#[derive(Module, Debug)]
pub struct Decoder {
    up_time: Interpolate1d,
    up_image: Interpolate2d,
    up_mask: Interpolate2d,
}

pub fn decoder() -> Decoder {
    Decoder {
        up_time: Interpolate1dConfig::new()
            .with_output_size(Some(400))
            .with_mode(InterpolateMode::Cubic) //~ interpolate-backward-mode error
            .init(),
        up_image: Interpolate2dConfig::new()
            .with_scale_factor(Some([2.0, 2.0]))
            .with_mode(Mode::Linear) //~ interpolate-backward-mode error
            .init(),
        // the default mode is Nearest
        up_mask: Interpolate2dConfig::new().with_scale_factor(Some([2.0, 2.0])).init(),
    }
}

pub fn lanczos_config_in_a_let() -> Interpolate2d {
    let config = Interpolate2dConfig::new().with_output_size(Some([224, 224]));
    let config = config.with_mode(Mode::Lanczos); //~ interpolate-backward-mode error
    config.init()
}

pub fn overridden() -> Interpolate2d {
    // only the last with_mode counts
    Interpolate2dConfig::new()
        .with_mode(Mode::Linear)
        .with_mode(Mode::NearestExact)
        .init() //~ interpolate2d-missing-output-size-and-scale error
}

pub fn nearest() -> Interpolate1d {
    // neither output_size nor scale_factor: Interpolate1d::forward panics (the shipped record
    // of that panic derives the rule)
    Interpolate1dConfig::new().with_mode(InterpolateMode::Nearest).init() //~ derived-interpolate1d-config-output-size-either-scale-factor error
}

//! Look-alikes: an image crate's own InterpolateMode and interpolate, and another crate's.

#[derive(Clone, Copy, Debug)]
pub enum InterpolateMode {
    Bilinear,
    Bicubic,
}

pub struct InterpolateOptions {
    pub mode: InterpolateMode,
}

impl InterpolateOptions {
    pub fn new(mode: InterpolateMode) -> Self {
        Self { mode }
    }
}

pub fn interpolate(pixels: Vec<f32>, _size: [usize; 2], options: InterpolateOptions) -> Vec<f32> {
    match options.mode {
        InterpolateMode::Bilinear | InterpolateMode::Bicubic => pixels,
    }
}

pub fn thumbnail(pixels: Vec<f32>) -> Vec<f32> {
    interpolate(pixels, [64, 64], InterpolateOptions::new(InterpolateMode::Bilinear))
}

pub fn other_crate(img: image::DynamicImage) -> image::DynamicImage {
    use image::imageops::{FilterType, InterpolateMode as Filter};
    let _ = Filter::Bilinear;
    img.resize(64, 64, FilterType::CatmullRom)
}

pub struct Interpolate2dConfig;

impl Interpolate2dConfig {
    pub fn new() -> Self {
        Self
    }
    pub fn with_mode(self, _m: InterpolateMode) -> Self {
        self
    }
}

pub fn local_config() -> Interpolate2dConfig {
    Interpolate2dConfig::new().with_mode(InterpolateMode::Bicubic)
}

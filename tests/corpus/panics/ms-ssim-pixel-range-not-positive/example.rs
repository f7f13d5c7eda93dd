// Multi-scale SSIM for a generative model's validation loop.
use burn::prelude::*;
use burn_train::metric::vision::{MsSsimMetric, MsSsimMetricConfig, SsimMetricConfig};

const PIXEL_MIN: f32 = -1.0;

mod eval {
    pub struct MsSsimMetricConfig {
        pub pixel_range: f32,
    }
    impl MsSsimMetricConfig {
        pub fn new(pixel_range: f32) -> Self {
            Self { pixel_range }
        }
    }
}

pub fn ms_ssim(device: &Device, range: f32) -> Vec<MsSsimMetric> {
    let a = MsSsimMetric::new(MsSsimMetricConfig::new(2.0), device); // ok
    let b = MsSsimMetric::new(MsSsimMetricConfig::new(range), device); // ok
    let c = MsSsimMetricConfig::new(0.0); // expect: ms-ssim-pixel-range-not-positive
    let d = MsSsimMetricConfig::new(PIXEL_MIN); // expect: ms-ssim-pixel-range-not-positive
    let e = MsSsimMetricConfig::new(PIXEL_MIN - 1.0); // expect: ms-ssim-pixel-range-not-positive
    vec![a, b, MsSsimMetric::new(c, device), MsSsimMetric::new(d, device), MsSsimMetric::new(e, device)]
}

pub fn look_alikes() -> f32 {
    let _s = SsimMetricConfig::new(255.0); // ok
    eval::MsSsimMetricConfig::new(0.0).pixel_range // ok
}

// Denoising validation: structural similarity on [0, 1] or [-1, 1] images.
use burn_train::metric::vision::{PsnrMetricConfig, SsimMetric, SsimMetricConfig};

const MIN_PIXEL: f32 = 0.0;
const MAX_PIXEL: f32 = 1.0;

mod local {
    pub struct SsimMetricConfig {
        pub pixel_range: f32,
    }
    impl SsimMetricConfig {
        pub fn new(pixel_range: f32) -> Self {
            Self { pixel_range }
        }
    }
}

pub fn ssim_metrics(range_from_data: f32) -> Vec<SsimMetric> {
    let a = SsimMetric::new(SsimMetricConfig::new(1.0)); // ok
    let b = SsimMetric::new(SsimMetricConfig::new(255.0)); // ok
    let c = SsimMetricConfig::new(0.0); // expect: ssim-pixel-range-not-positive
    let d = SsimMetricConfig::new(MIN_PIXEL - MAX_PIXEL); // expect: ssim-pixel-range-not-positive
    let e = SsimMetricConfig::new(range_from_data); // ok
    let f = SsimMetricConfig::new(MIN_PIXEL); // expect: ssim-pixel-range-not-positive
    vec![a, b, SsimMetric::new(c), SsimMetric::new(d), SsimMetric::new(e), SsimMetric::new(f)]
}

pub fn look_alikes() -> f32 {
    let _p = PsnrMetricConfig::new(255.0); // ok
    local::SsimMetricConfig::new(0.0).pixel_range // ok
}

// SSIM with a custom Gaussian window.
use burn_train::metric::vision::{MsSsimMetricConfig, SsimMetric, SsimMetricConfig};

const BOX_SIGMA: f32 = 0.0;

mod window {
    pub struct SsimMetricConfig {
        pub sigma: f32,
    }
    impl SsimMetricConfig {
        pub fn new(_range: f32) -> Self {
            Self { sigma: 1.5 }
        }
        pub fn with_sigma(mut self, sigma: f32) -> Self {
            self.sigma = sigma;
            self
        }
    }
}

pub fn windows(sigma: f32) -> Vec<SsimMetric> {
    let a = SsimMetricConfig::new(1.0).with_sigma(1.5); // ok
    let b = SsimMetricConfig::new(1.0).with_sigma(0.0); // expect: ssim-sigma-not-positive
    let c = SsimMetricConfig::new(1.0).with_sigma(sigma); // ok
    let d = SsimMetricConfig::new(1.0).with_kernel_size(7).with_sigma(BOX_SIGMA); // expect: ssim-sigma-not-positive
    let e = SsimMetricConfig::new(1.0).with_sigma(-1.0); // expect: ssim-sigma-not-positive
    vec![SsimMetric::new(a), SsimMetric::new(b), SsimMetric::new(c), SsimMetric::new(d), SsimMetric::new(e)]
}

pub fn look_alikes() -> f32 {
    let _ms = MsSsimMetricConfig::new(1.0).with_sigma(2.0); // ok
    window::SsimMetricConfig::new(1.0).with_sigma(0.0).sigma // ok
}

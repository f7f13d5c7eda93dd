// SSIM on small thumbnails: a smaller Gaussian window.
use burn_train::metric::vision::{MsSsimMetricConfig, SsimMetric, SsimMetricConfig};

const WINDOW: usize = 8;

mod thumbs {
    pub struct SsimMetricConfig {
        pub kernel_size: usize,
    }
    impl SsimMetricConfig {
        pub fn new(_range: f32) -> Self {
            Self { kernel_size: 11 }
        }
        pub fn with_kernel_size(mut self, kernel_size: usize) -> Self {
            self.kernel_size = kernel_size;
            self
        }
    }
}

pub fn thumbnail_ssim(window: usize) -> Vec<SsimMetric> {
    let a = SsimMetricConfig::new(1.0).with_kernel_size(7); // ok
    let b = SsimMetricConfig::new(1.0).with_kernel_size(8); // expect: ssim-kernel-size-not-odd
    let c = SsimMetricConfig::new(1.0).with_kernel_size(window); // ok
    let d = SsimMetricConfig::new(1.0).with_sigma(1.0).with_kernel_size(WINDOW); // expect: ssim-kernel-size-not-odd
    let e = SsimMetricConfig::new(1.0).with_kernel_size(0); // expect: ssim-kernel-size-not-odd
    let f = SsimMetricConfig::new(1.0).with_kernel_size(2 * 3 + 1); // ok
    vec![SsimMetric::new(a), SsimMetric::new(b), SsimMetric::new(c), SsimMetric::new(d), SsimMetric::new(e), SsimMetric::new(f)]
}

pub fn look_alikes() -> usize {
    let _ms = MsSsimMetricConfig::new(1.0).with_channels(4); // ok
    thumbs::SsimMetricConfig::new(1.0).with_kernel_size(8).kernel_size // ok
}

// MS-SSIM on 64x64 crops: a smaller window.
use burn::prelude::*;
use burn_train::metric::vision::{MsSsimMetric, MsSsimMetricConfig, SsimMetricConfig};

const CROP_WINDOW: usize = 4;

mod crops {
    pub struct MsSsimMetricConfig {
        pub kernel_size: usize,
    }
    impl MsSsimMetricConfig {
        pub fn new(_range: f32) -> Self {
            Self { kernel_size: 11 }
        }
        pub fn with_kernel_size(mut self, kernel_size: usize) -> Self {
            self.kernel_size = kernel_size;
            self
        }
    }
}

pub fn crop_metrics(device: &Device, window: usize) -> Vec<MsSsimMetric> {
    let a = MsSsimMetricConfig::new(1.0).with_kernel_size(5); // ok
    let b = MsSsimMetricConfig::new(1.0).with_kernel_size(4); // expect: ms-ssim-kernel-size-not-odd
    let c = MsSsimMetricConfig::new(1.0).with_kernel_size(window); // ok
    let d = MsSsimMetricConfig::new(1.0).with_channels(1).with_kernel_size(CROP_WINDOW); // expect: ms-ssim-kernel-size-not-odd
    let e = MsSsimMetricConfig::new(1.0).with_kernel_size(0); // expect: ms-ssim-kernel-size-not-odd
    [a, b, c, d, e].into_iter().map(|cfg| MsSsimMetric::new(cfg, device)).collect()
}

pub fn look_alikes() -> usize {
    let _s = SsimMetricConfig::new(1.0).with_kernel_size(11); // ok
    crops::MsSsimMetricConfig::new(1.0).with_kernel_size(4).kernel_size // ok
}

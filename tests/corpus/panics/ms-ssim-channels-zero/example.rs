// MS-SSIM for grayscale and multispectral images.
use burn::prelude::*;
use burn_train::metric::vision::{MsSsimMetric, MsSsimMetricConfig, SsimMetricConfig};

const BANDS: usize = 0;

mod spectral {
    pub struct MsSsimMetricConfig {
        pub channels: usize,
    }
    impl MsSsimMetricConfig {
        pub fn new(_range: f32) -> Self {
            Self { channels: 3 }
        }
        pub fn with_channels(mut self, channels: usize) -> Self {
            self.channels = channels;
            self
        }
    }
}

pub fn spectral_metrics(device: &Device, bands: usize) -> Vec<MsSsimMetric> {
    let a = MsSsimMetricConfig::new(1.0).with_channels(1); // ok
    let b = MsSsimMetricConfig::new(1.0).with_channels(0); // expect: ms-ssim-channels-zero
    let c = MsSsimMetricConfig::new(1.0).with_channels(bands); // ok
    let d = MsSsimMetricConfig::new(1.0).with_kernel_size(7).with_channels(BANDS); // expect: ms-ssim-channels-zero
    let e = MsSsimMetricConfig::new(1.0).with_channels(12); // ok
    [a, b, c, d, e].into_iter().map(|cfg| MsSsimMetric::new(cfg, device)).collect()
}

pub fn look_alikes() -> usize {
    let _s = SsimMetricConfig::new(1.0).with_kernel_size(3); // ok
    spectral::MsSsimMetricConfig::new(1.0).with_channels(0).channels // ok
}

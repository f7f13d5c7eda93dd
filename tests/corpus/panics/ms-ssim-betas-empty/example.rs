// MS-SSIM with custom scale weights.
use burn::prelude::*;
use burn_train::metric::vision::{MsSsimMetric, MsSsimMetricConfig, SsimMetricConfig};

mod scales {
    pub struct MsSsimMetricConfig {
        pub betas: Vec<f32>,
    }
    impl MsSsimMetricConfig {
        pub fn new(_range: f32) -> Self {
            Self { betas: vec![1.0] }
        }
        pub fn with_betas(mut self, betas: Vec<f32>) -> Self {
            self.betas = betas;
            self
        }
    }
}

pub fn weighted(device: &Device, betas: Vec<f32>) -> Vec<MsSsimMetric> {
    let a = MsSsimMetricConfig::new(1.0).with_betas(vec![0.2, 0.3, 0.5]); // ok
    let b = MsSsimMetricConfig::new(1.0).with_betas(vec![]); // expect: ms-ssim-betas-empty
    let c = MsSsimMetricConfig::new(1.0).with_betas(betas); // ok
    let d = MsSsimMetricConfig::new(1.0).with_channels(1).with_betas(Vec::new()); // expect: ms-ssim-betas-empty
    let e = MsSsimMetricConfig::new(1.0).with_betas(vec![1.0]); // ok
    [a, b, c, d, e].into_iter().map(|cfg| MsSsimMetric::new(cfg, device)).collect()
}

pub fn look_alikes() -> usize {
    let _s = SsimMetricConfig::new(1.0).with_sigma(1.0); // ok
    scales::MsSsimMetricConfig::new(1.0).with_betas(vec![]).betas.len() // ok
}

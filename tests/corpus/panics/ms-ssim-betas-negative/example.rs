// MS-SSIM with scale weights tuned per dataset.
use burn::prelude::*;
use burn_train::metric::vision::{MsSsimMetric, MsSsimMetricConfig, SsimMetricConfig};

const FINE_WEIGHT: f32 = -0.1;

mod tuned {
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

pub fn tuned_metrics(device: &Device, betas: Vec<f32>) -> Vec<MsSsimMetric> {
    let a = MsSsimMetricConfig::new(1.0).with_betas(vec![0.5, 0.0, 0.5]); // ok
    let b = MsSsimMetricConfig::new(1.0).with_betas(vec![0.5, -0.1, 0.6]); // expect: ms-ssim-betas-negative
    let c = MsSsimMetricConfig::new(1.0).with_betas(betas); // ok
    let d = MsSsimMetricConfig::new(1.0).with_betas(vec![FINE_WEIGHT, 1.1]); // expect: ms-ssim-betas-negative
    let e = MsSsimMetricConfig::new(2.0).with_betas(vec![0.2; 5]); // ok
    [a, b, c, d, e].into_iter().map(|cfg| MsSsimMetric::new(cfg, device)).collect()
}

pub fn look_alikes() -> usize {
    let _s = SsimMetricConfig::new(1.0).with_k1_k2(0.01, 0.03); // ok
    tuned::MsSsimMetricConfig::new(1.0).with_betas(vec![-1.0]).betas.len() // ok
}

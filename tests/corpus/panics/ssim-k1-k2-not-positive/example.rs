// SSIM variants for an ablation table.
use burn_train::metric::vision::{MsSsimMetricConfig, SsimMetric, SsimMetricConfig};

const NO_K1: f32 = 0.0;

mod ablation {
    pub struct SsimMetricConfig {
        pub k1: f32,
        pub k2: f32,
    }
    impl SsimMetricConfig {
        pub fn new(_range: f32) -> Self {
            Self { k1: 0.01, k2: 0.03 }
        }
        pub fn with_k1_k2(mut self, k1: f32, k2: f32) -> Self {
            self.k1 = k1;
            self.k2 = k2;
            self
        }
    }
}

pub fn variants(k1: f32, k2: f32) -> Vec<SsimMetric> {
    let a = SsimMetricConfig::new(1.0).with_k1_k2(0.01, 0.03); // ok
    let b = SsimMetricConfig::new(1.0).with_k1_k2(0.0, 0.03); // expect: ssim-k1-k2-not-positive
    let c = SsimMetricConfig::new(1.0).with_k1_k2(k1, k2); // ok
    let d = SsimMetricConfig::new(255.0).with_k1_k2(0.015, -0.025); // expect: ssim-k1-k2-not-positive
    let e = SsimMetricConfig::new(1.0).with_k1_k2(NO_K1, 0.03); // expect: ssim-k1-k2-not-positive
    vec![SsimMetric::new(a), SsimMetric::new(b), SsimMetric::new(c), SsimMetric::new(d), SsimMetric::new(e)]
}

pub fn look_alikes() -> f32 {
    let _ms = MsSsimMetricConfig::new(1.0).with_k1_k2(0.01, 0.03); // ok
    ablation::SsimMetricConfig::new(1.0).with_k1_k2(0.0, 0.0).k1 // ok
}

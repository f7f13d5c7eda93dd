// Super-resolution validation metrics (burn-train with the `vision` feature).
use burn_train::metric::vision::{PsnrMetric, PsnrMetricConfig, SsimMetricConfig};

const EXACT: f64 = 0.0;

mod quality {
    pub struct PsnrMetricConfig {
        pub epsilon: f64,
    }
    impl PsnrMetricConfig {
        pub fn new(_max: f64) -> Self {
            Self { epsilon: 1e-10 }
        }
        pub fn with_epsilon(mut self, epsilon: f64) -> Self {
            self.epsilon = epsilon;
            self
        }
    }
}

pub fn metrics(eps: f64) -> Vec<PsnrMetric> {
    let a = PsnrMetricConfig::new(1.0).with_epsilon(1e-8); // ok
    let b = PsnrMetricConfig::new(255.0).with_epsilon(0.0); // expect: psnr-epsilon-not-positive
    let c = PsnrMetricConfig::new(1.0).with_epsilon(eps); // ok
    let d = PsnrMetricConfig::new(1.0).with_epsilon(EXACT); // expect: psnr-epsilon-not-positive
    let e = PsnrMetricConfig::new(1.0).with_epsilon(-1e-10); // expect: psnr-epsilon-not-positive
    vec![PsnrMetric::new(a), PsnrMetric::new(b), PsnrMetric::new(c), PsnrMetric::new(d), PsnrMetric::new(e)]
}

pub fn look_alikes() -> f64 {
    let _s = SsimMetricConfig::new(1.0).with_sigma(0.5); // ok
    quality::PsnrMetricConfig::new(1.0).with_epsilon(0.0).epsilon // ok
}

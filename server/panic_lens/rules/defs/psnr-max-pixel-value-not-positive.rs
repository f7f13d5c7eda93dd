// Image-reconstruction metrics (burn-train with the `vision` feature).
use burn_train::metric::vision::{PsnrMetric, PsnrMetricConfig};

const RANGE: f64 = 0.0;

mod local {
    pub struct PsnrMetricConfig {
        pub max: f64,
    }

    impl PsnrMetricConfig {
        pub fn new(max: f64) -> Self {
            PsnrMetricConfig { max }
        }
    }
}

pub fn metrics() -> Vec<PsnrMetric> {
    vec![
        PsnrMetric::new(PsnrMetricConfig::new(0.0)), // expect: psnr-max-pixel-value-not-positive
        PsnrMetric::new(PsnrMetricConfig::new(RANGE)), // expect: psnr-max-pixel-value-not-positive
        PsnrMetric::new(PsnrMetricConfig::new(-1.0)), // expect: psnr-max-pixel-value-not-positive
        PsnrMetric::new(PsnrMetricConfig::new(1.0)), // ok
        PsnrMetric::new(PsnrMetricConfig::new(255.0).with_epsilon(1e-8)), // ok
    ]
}

pub fn from_data(max_seen: f64) -> PsnrMetric {
    PsnrMetric::new(PsnrMetricConfig::new(max_seen)) // ok
}

pub fn look_alikes() -> f64 {
    let c = local::PsnrMetricConfig::new(0.0); // ok
    let m = f64::max(0.0, -1.0); // ok
    c.max + m
}

// Lines added with the rule file.
pub fn more() -> PsnrMetricConfig {
    let _tiny = PsnrMetricConfig::new(1e-3); // ok
    burn_train::metric::vision::PsnrMetricConfig::new(-255.0) // expect: psnr-max-pixel-value-not-positive
}

// The same calls outside a macro.
pub fn outside_a_macro(range: f64) -> [PsnrMetric; 3] {
    let zero = PsnrMetric::new(PsnrMetricConfig::new(0.0)); // expect: psnr-max-pixel-value-not-positive
    let negative = PsnrMetric::new(PsnrMetricConfig::new(-1.0)); // expect: psnr-max-pixel-value-not-positive
    let unknown = PsnrMetric::new(PsnrMetricConfig::new(range)); // ok
    [zero, negative, unknown]
}

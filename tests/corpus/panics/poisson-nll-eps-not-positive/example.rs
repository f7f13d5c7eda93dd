// Count regression (events per hour) with a Poisson likelihood.
use burn::nn::loss::{PoissonNllLoss, PoissonNllLossConfig, HuberLossConfig};

const NO_EPS: f64 = 0.0;

mod counts {
    pub struct PoissonNllLossConfig {
        pub eps: f64,
    }
    impl PoissonNllLossConfig {
        pub fn new() -> Self {
            Self { eps: 1e-8 }
        }
        pub fn with_eps(mut self, eps: f64) -> Self {
            self.eps = eps;
            self
        }
        pub fn init(&self) -> f64 {
            self.eps
        }
    }
}

pub fn count_losses(eps: f64) -> Vec<PoissonNllLoss> {
    let a = PoissonNllLossConfig::new().init(); // ok
    let b = PoissonNllLossConfig::new().with_log_input(false).with_eps(1e-6).init(); // ok
    let c = PoissonNllLossConfig::new().with_eps(0.0).init(); // expect: poisson-nll-eps-not-positive
    let d = PoissonNllLossConfig::new().with_eps(eps).init(); // ok
    let e = PoissonNllLossConfig::new().with_full(true).with_eps(NO_EPS).init(); // expect: poisson-nll-eps-not-positive
    let cfg = PoissonNllLossConfig::new().with_eps(-1e-8);
    let f = cfg.init(); // expect: poisson-nll-eps-not-positive
    vec![a, b, c, d, e, f]
}

pub fn look_alikes() -> f64 {
    let _h = HuberLossConfig::new(0.0).init(); // ok
    counts::PoissonNllLossConfig::new().with_eps(0.0).init() // ok
}

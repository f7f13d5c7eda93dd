// Multi-class hinge losses.
use burn::nn::loss::{LpLossConfig, MultiMarginLoss, MultiMarginLossConfig};

const P: i32 = 3;

pub struct MultiMarginLossConfigLocal {
    pub p: i32,
}

impl MultiMarginLossConfigLocal {
    pub fn new() -> Self {
        Self { p: 1 }
    }
    pub fn with_p(mut self, p: i32) -> Self {
        self.p = p;
        self
    }
    pub fn init(&self) -> i32 {
        self.p
    }
}

pub fn margins(p_from_cli: i32) -> Vec<MultiMarginLoss> {
    let a = MultiMarginLossConfig::new().init(); // ok
    let b = MultiMarginLossConfig::new().with_p(2).init(); // ok
    let c = MultiMarginLossConfig::new().with_p(3).init(); // expect: multi-margin-p-unsupported
    let d = MultiMarginLossConfig::new().with_p(p_from_cli).init(); // ok
    let e = MultiMarginLossConfig::new().with_margin(0.5).with_p(P).init(); // expect: multi-margin-p-unsupported
    let cfg = MultiMarginLossConfig::new().with_p(0);
    let f = cfg.init(); // expect: multi-margin-p-unsupported
    vec![a, b, c, d, e, f]
}

pub fn look_alikes() -> i32 {
    let _lp = LpLossConfig::new(3.0).init(); // ok
    MultiMarginLossConfigLocal::new().with_p(3).init() // ok
}

// Lines added with the rule file.
pub fn more() -> Vec<MultiMarginLoss> {
    let a = burn::nn::loss::MultiMarginLossConfig::new().with_p(-1).init(); // expect: multi-margin-p-unsupported
    let b = MultiMarginLossConfig { p: 2, ..MultiMarginLossConfig::new() }.init(); // ok
    // A negative margin fails the first assert; p is never checked.
    let c = MultiMarginLossConfig::new().with_margin(-1.0).with_p(3).init(); // ok
    vec![a, b, c]
}

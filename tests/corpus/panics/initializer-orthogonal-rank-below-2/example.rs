// PPO actor-critic network with orthogonal initialization (a PyTorch habit).
// Initialization is lazy: the panic fires at the first forward, the flagged line fixes the values.
use burn::module::{Initializer, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{EmbeddingConfig, Linear, LinearConfig};
use burn::prelude::*;

const ORTHO: Initializer = Initializer::Orthogonal { gain: 1.0 };

mod rl {
    pub enum Initializer {
        Orthogonal { gain: f64 },
    }
    pub struct LinearConfig;
    impl LinearConfig {
        pub fn new(_i: usize, _o: usize) -> Self {
            LinearConfig
        }
        pub fn with_initializer(self, _init: Initializer) -> Self {
            self
        }
        pub fn init(&self) {}
    }
}

pub fn actor(device: &Device, init: Initializer) -> Vec<Linear> {
    let a = LinearConfig::new(64, 64).with_initializer(Initializer::Orthogonal { gain: 2f64.sqrt() }).init(device); // expect: initializer-orthogonal-rank-below-2
    let b = LinearConfig::new(64, 64).with_initializer(Initializer::Orthogonal { gain: 1.0 }).with_bias(false).init(device); // ok
    let c = LinearConfig::new(64, 4).with_initializer(init).init(device); // ok
    let d = LinearConfig::new(64, 1).with_initializer(ORTHO).init(device); // expect: initializer-orthogonal-rank-below-2
    let e = LinearConfig::new(64, 64).init(device); // ok
    vec![a, b, c, d, e]
}

pub fn encoder(device: &Device) -> Conv2d {
    let cfg = Conv2dConfig::new([4, 32], [8, 8]).with_stride([4, 4]).with_initializer(Initializer::Orthogonal { gain: 1.0 });
    cfg.init(device) // expect: initializer-orthogonal-rank-below-2
}

pub fn params(device: &Device) -> (Param<Tensor<2>>, Param<Tensor<1>>) {
    let w: Param<Tensor<2>> = Initializer::Orthogonal { gain: 1.0 }.init([64, 64], device); // ok
    let b: Param<Tensor<1>> = Initializer::Orthogonal { gain: 1.0 }.init([64], device); // expect: initializer-orthogonal-rank-below-2
    let _emb = EmbeddingConfig::new(100, 16).with_initializer(Initializer::Orthogonal { gain: 1.0 }).init(device); // ok
    rl::LinearConfig::new(64, 64).with_initializer(rl::Initializer::Orthogonal { gain: 1.0 }).init(); // ok
    (w, b)
}

// A recurrent policy network initialized orthogonally, as PyTorch code often does.
use burn::module::{Initializer, Param};
use burn::nn::conv::{Conv1d, Conv1dConfig};
use burn::nn::{EmbeddingConfig, GruConfig, LinearConfig, LstmConfig};
use burn::prelude::*;

const ORTHOGONAL: Initializer = Initializer::Orthogonal { gain: 1.0 };

pub fn layers(device: &Device, init: Initializer, bias: bool) {
    let _fc = LinearConfig::new(128, 128).with_initializer(ORTHOGONAL).init(device); // expect: initializer-orthogonal-rank-below-2
    let _fc_nb = LinearConfig::new(128, 128)
        .with_initializer(ORTHOGONAL)
        .with_bias(false)
        .init(device); // ok (no bias: the weight has rank 2)
    let _gru = GruConfig::new(64, 128, true).with_initializer(ORTHOGONAL).init(device); // expect: initializer-orthogonal-rank-below-2
    let _lstm = LstmConfig::new(64, 128, false).with_initializer(ORTHOGONAL).init(device); // ok
    let _lstm_b = LstmConfig::new(64, 128, bias).with_initializer(ORTHOGONAL).init(device); // ok (bias not known here)
    let _any = LinearConfig::new(128, 4).with_initializer(init).init(device); // ok (not known here)
    let _emb = EmbeddingConfig::new(512, 64).with_initializer(ORTHOGONAL).init(device); // ok (no bias)
    let _fc_default = LinearConfig::new(128, 4).init(device); // ok
}

pub fn conv(device: &Device) -> Conv1d {
    let config = Conv1dConfig::new(16, 32, 3).with_initializer(Initializer::Orthogonal { gain: 1.0 });
    config.init(device) // expect: initializer-orthogonal-rank-below-2
}

pub fn params(device: &Device) -> (Param<Tensor<3>>, Param<Tensor<1>>, Param<Tensor<1>>) {
    let kernel = ORTHOGONAL.init([32, 16, 3], device); // ok
    let scale = ORTHOGONAL.init([32], device); // expect: initializer-orthogonal-rank-below-2
    let shift = ORTHOGONAL.init_with::<1, _>(vec![32], Some(16), Some(32), device); // expect: initializer-orthogonal-rank-below-2
    let _zeros: Param<Tensor<1>> = Initializer::Zeros.init([32], device); // ok
    (kernel, scale, shift)
}

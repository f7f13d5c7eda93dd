//! Modules held in a `#[derive(Module)]` struct's fields, built from configs in the struct's
//! `init`/`new`, then used in `forward`.
use burn::nn::loss::{CTCLoss, CTCLossConfig};
use burn::nn::{
    Dropout, DropoutConfig, GroupNorm, GroupNormConfig, LayerNorm, LayerNormConfig, Linear,
    LinearConfig,
};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

#[derive(Config, Debug)]
pub struct HeadConfig {
    pub n_classes: usize,
}

#[derive(Module, Debug)]
pub struct Head {
    proj: Linear,
    norm: LayerNorm,
    dropout: Dropout,
    ctc: CTCLoss,
}

impl HeadConfig {
    pub fn init(&self, device: &Device) -> Head {
        Head {
            proj: LinearConfig::new(64, 32).init(device),
            norm: LayerNormConfig::new(32).init(device),
            dropout: DropoutConfig::new(0.1).init(),
            ctc: CTCLossConfig::new().with_blank(40).init(),
        }
    }
}

impl Head {
    pub fn forward(
        &self,
        x: Tensor<3>,
        targets: Tensor<2, Int>,
        input_lengths: Tensor<1, Int>,
        target_lengths: Tensor<1, Int>,
    ) -> Tensor<1> {
        let h = self.norm.forward(self.proj.forward(x));
        let _tail = h.clone().narrow(2, 24, 16); // expect: narrow-out-of-range
        let _head = h.clone().narrow(2, 0, 32); // ok
        let logp = log_softmax(self.dropout.forward(h), 2).swap_dims(0, 1);
        self.ctc.forward(logp, targets, input_lengths, target_lengths) // expect: ctc-blank-out-of-range
    }
}

/// Built by `new` with a norm whose group count does not divide its channels.
#[derive(Module, Debug)]
pub struct Block {
    norm: GroupNorm,
    proj: Linear,
}

impl Block {
    pub fn new(device: &Device) -> Self {
        Self {
            norm: GroupNormConfig::new(6, 32).init(device), // expect: group-norm-groups-divide-channels
            proj: LinearConfig::new(32, 16).init(device),
        }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let y = self.proj.forward(x);
        let _k = y.clone().topk(20, 1); // expect: topk-k-out-of-range
        y.topk(16, 1) // ok
    }
}

/// Its width comes from the config, which is read at run time: nothing is known in `forward`.
#[derive(Config, Debug)]
pub struct ClassifierConfig {
    pub n_classes: usize,
    pub blank: usize,
}

#[derive(Module, Debug)]
pub struct Classifier {
    proj: Linear,
    ctc: CTCLoss,
}

impl ClassifierConfig {
    pub fn init(&self, device: &Device) -> Classifier {
        Classifier {
            proj: LinearConfig::new(64, self.n_classes).init(device),
            ctc: CTCLossConfig::new().with_blank(self.blank).init(),
        }
    }
}

impl Classifier {
    pub fn forward(&self, x: Tensor<3>, t: Tensor<2, Int>, il: Tensor<1, Int>, tl: Tensor<1, Int>) -> Tensor<1> {
        let h = self.proj.forward(x);
        let _tail = h.clone().narrow(2, 24, 16); // ok
        let logp = log_softmax(h, 2).swap_dims(0, 1);
        self.ctc.forward(logp, t, il, tl) // ok
    }
}

/// Two constructors build the field with different widths: only one of them panics later.
#[derive(Module, Debug)]
pub struct Adapter {
    proj: Linear,
}

impl Adapter {
    pub fn small(device: &Device) -> Self {
        Self { proj: LinearConfig::new(64, 16).init(device) }
    }

    pub fn large(device: &Device) -> Self {
        Self { proj: LinearConfig::new(64, 64).init(device) }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.proj.forward(x).narrow(1, 0, 32) // ok (only `small` makes it panic)
    }
}

mod local {
    use burn::prelude::*;

    /// The crate's own `Linear`, which keeps the width.
    #[derive(Debug, Clone)]
    pub struct Linear;

    impl Linear {
        pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
            x
        }
    }
}

pub struct Wrapper {
    proj: local::Linear,
}

impl Wrapper {
    pub fn new() -> Self {
        Self { proj: local::Linear }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.proj.forward(x).narrow(1, 24, 16) // ok (the crate's own Linear)
    }
}

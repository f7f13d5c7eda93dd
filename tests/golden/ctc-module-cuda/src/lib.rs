//! The CTCLoss module at 0.22 on cuda (inherited from the workspace): receivers known by
//! builder chains, lets, parameters, struct fields and UFCS; look-alike losses never flagged.

use burn::nn::loss::{CTCLoss, CTCLossConfig, Reduction};
use burn::prelude::*;

const MAX_LABELS: usize = 4100;
const BATCH: usize = 4;

fn lens(v: i64, device: &Device) -> Tensor<1, Int> {
    Tensor::<1, Int>::full([BATCH], v, device)
}

pub fn chained(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([BATCH, MAX_LABELS], device);
    CTCLossConfig::new()
        .with_blank(0)
        .init()
        .forward(log_probs, targets, lens(9000, device), lens(9, device)) //~ ctc-target-capacity error
}

pub fn let_bound(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let loss = CTCLossConfig::new().with_zero_infinity(true).init();
    let targets = Tensor::<2, Int>::zeros([BATCH, 4096], device);
    let small = Tensor::<2, Int>::zeros([BATCH, 32], device);
    let _ok = loss.forward(log_probs.clone(), small, lens(64, device), lens(9, device));
    loss.forward_with_reduction(log_probs, targets, lens(9000, device), lens(9, device), Reduction::Mean)
    //~^ ctc-target-capacity error
}

pub fn parameter(loss: &CTCLoss, log_probs: Tensor<3>, labels: Tensor<1, Int>) -> Tensor<1> {
    let device = log_probs.device();
    let targets = labels.reshape([BATCH, 4500]);
    loss.forward(log_probs, targets, lens(9000, &device), lens(9, &device)) //~ ctc-target-capacity error
}

pub fn ufcs(loss: CTCLoss, log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([BATCH, 7000], device);
    CTCLoss::forward(&loss, log_probs, targets, lens(9000, device), lens(9, device)) //~ ctc-target-capacity error
}

#[derive(Module, Debug)]
pub struct Recognizer {
    ctc: CTCLoss,
    scorer: EditDistance,
}

impl Recognizer {
    pub fn loss(&self, log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
        let targets = Tensor::<2, Int>::zeros([BATCH, 5000], device);
        self.ctc.forward(log_probs, targets, lens(9000, device), lens(9, device)) //~ ctc-target-capacity error
    }

    pub fn score(&self, log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
        // A look-alike: our own loss with a `forward(log_probs, targets, ..)` method.
        let targets = Tensor::<2, Int>::zeros([BATCH, 5000], device);
        self.scorer.forward(log_probs, targets, lens(9000, device), lens(9, device))
    }

    pub fn runtime(&self, log_probs: Tensor<3>, targets: Tensor<2, Int>, device: &Device) -> Tensor<1> {
        self.ctc.forward(log_probs, targets, lens(9000, device), lens(9, device))
    }
}

#[derive(Module, Debug, Clone)]
pub struct EditDistance;

impl EditDistance {
    pub fn forward(
        &self,
        log_probs: Tensor<3>,
        _targets: Tensor<2, Int>,
        _il: Tensor<1, Int>,
        _tl: Tensor<1, Int>,
    ) -> Tensor<1> {
        log_probs.sum_dim(0).squeeze_dim(0).sum_dim(1).squeeze_dim(1)
    }
}

/// Another crate's CTC loss with the same name is not burn's.
pub fn other_crate(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    use speech_utils::loss::CTCLoss as OtherCtc;
    let targets = Tensor::<2, Int>::zeros([BATCH, 5000], device);
    OtherCtc::default().forward(log_probs, targets, lens(9000, device), lens(9, device))
}

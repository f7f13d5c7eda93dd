// Examples of ctc-target-capacity (from its golden crates; no Cargo.toml above, so the backend is unknown).
//! A file with no Cargo.toml above it: the backend is unknown, so a wide target is a warning.

use burn::prelude::*;
use burn::tensor::module::ctc_loss;

pub fn loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([2, 4096], device);
    let lens = Tensor::<1, Int>::full([2], 9000, device);
    ctc_loss(log_probs, targets, lens.clone(), lens, 0) // expect: ctc-target-capacity
}

pub fn fine(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([2, 4095], device);
    let lens = Tensor::<1, Int>::full([2], 9000, device);
    ctc_loss(log_probs, targets, lens.clone(), lens, 0) // ok
}

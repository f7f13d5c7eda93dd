//! ctcCapacity from Cargo.toml metadata replaces 8192: 2 * 513 + 1 = 1027 > 1025.

use burn::prelude::*;
use burn::tensor::module::ctc_loss;

pub fn loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let lens = Tensor::<1, Int>::full([2], 9000, device);
    let at_limit = Tensor::<2, Int>::zeros([2, 512], device);
    let over = Tensor::<2, Int>::zeros([2, 513], device);
    let a = ctc_loss(log_probs.clone(), at_limit, lens.clone(), lens.clone(), 0);
    let b = ctc_loss(log_probs, over, lens.clone(), lens, 0); //~ ctc-target-capacity error
    a + b
}

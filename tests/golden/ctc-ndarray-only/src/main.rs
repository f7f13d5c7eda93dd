//! Only ndarray is enabled: its ctc_loss has no capacity limit, so a wide target is a hint
//! (the code would panic if moved to a cubecl backend), never a warning.

use burn::prelude::*;
use burn::tensor::module::ctc_loss;

fn main() {
    let device = Device::default();
    let log_probs = Tensor::<3>::zeros([9000, 2, 30], &device);
    let targets = Tensor::<2, Int>::ones([2, 4096], &device);
    let il = Tensor::<1, Int>::full([2], 9000, &device);
    let tl = Tensor::<1, Int>::full([2], 4096, &device);
    let loss = ctc_loss(log_probs, targets, il, tl, 0); //~ ctc-target-capacity hint
    println!("{loss}");
}

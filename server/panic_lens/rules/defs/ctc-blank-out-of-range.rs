// Speech recognizer trained with CTC; the blank is the last class.
use burn::nn::loss::{CTCLossConfig, MseLoss, Reduction};
use burn::prelude::*;

const VOCAB: usize = 28;

mod decoder {
    pub struct CTCLossConfig {
        pub blank: usize,
    }
    impl CTCLossConfig {
        pub fn new() -> Self {
            Self { blank: 0 }
        }
        pub fn with_blank(mut self, blank: usize) -> Self {
            self.blank = blank;
            self
        }
    }
}

pub fn step(device: &Device, log_probs: Tensor<3>, blank: usize) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([4, 20], device);
    let input_lengths = Tensor::<1, Int>::full([4], 100, device);
    let target_lengths = Tensor::<1, Int>::full([4], 20, device);

    // The acoustic model emits exactly VOCAB classes: no room for a blank at index VOCAB.
    let too_few = Tensor::<3>::zeros([100, 4, VOCAB], device);
    let enough = Tensor::<3>::zeros([100, 4, VOCAB + 1], device);

    let ctc_last = CTCLossConfig::new().with_blank(VOCAB).init();
    let _bad = ctc_last.forward(too_few, targets.clone(), input_lengths.clone(), target_lengths.clone()); // expect: ctc-blank-out-of-range
    let _good = ctc_last.forward(enough, targets.clone(), input_lengths.clone(), target_lengths.clone()); // ok

    let ctc_default = CTCLossConfig::new().init();
    let _default = ctc_default.forward(log_probs.clone(), targets.clone(), input_lengths.clone(), target_lengths.clone()); // ok

    let ctc_runtime = CTCLossConfig::new().with_blank(blank).init();
    let _runtime = ctc_runtime.forward(log_probs, targets.clone(), input_lengths.clone(), target_lengths.clone()); // ok

    let small = Tensor::<3>::zeros([50, 4, 10], device);
    let ctc_far = CTCLossConfig::new().with_blank(40).init();
    let _far = ctc_far.forward_with_reduction(small, targets, input_lengths, target_lengths, Reduction::Mean); // expect: ctc-blank-out-of-range

    let _local = decoder::CTCLossConfig::new().with_blank(VOCAB); // ok
    MseLoss::new().forward(Tensor::<1>::zeros([3], device), Tensor::<1>::ones([3], device), Reduction::Mean) // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([2, 5], device);
    let input_lengths = Tensor::<1, Int>::full([2], 30, device);
    let target_lengths = Tensor::<1, Int>::full([2], 5, device);
    let log_probs = Tensor::<3>::zeros([30, 2, 12], device);
    let edge = burn::nn::loss::CTCLossConfig::new().with_blank(11).init();
    let _last = edge.forward(log_probs.clone(), targets.clone(), input_lengths.clone(), target_lengths.clone()); // ok
    let off = CTCLossConfig::new().with_blank(12).with_zero_infinity(true).init();
    off.forward(log_probs, targets, input_lengths, target_lengths) // expect: ctc-blank-out-of-range
}

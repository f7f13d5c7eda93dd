//! CTC loss over padded transcripts.

use burn::prelude::*;
use burn::tensor::module::ctc_loss;

/// 2 * 5_000 + 1 = 10_001 alpha entries: more than the kernel's 8192.
pub const CHAPTER_WIDTH: usize = 5_000;
/// 2 * 512 + 1 = 1025 entries: within the limit.
pub const SENTENCE_WIDTH: usize = 512;
const BLANK: usize = 0;

pub fn chapter_loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let [frames, _, _] = log_probs.dims();
    let targets = Tensor::<2, Int>::ones([4, CHAPTER_WIDTH], device);
    let input_lengths = Tensor::<1, Int>::full([4], frames as i64, device);
    let target_lengths = Tensor::<1, Int>::full([4], CHAPTER_WIDTH as i64, device);
    ctc_loss(log_probs, targets, input_lengths, target_lengths, BLANK)
}

pub fn sentence_loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let [frames, _, _] = log_probs.dims();
    let targets = Tensor::<2, Int>::ones([4, SENTENCE_WIDTH], device);
    let input_lengths = Tensor::<1, Int>::full([4], frames as i64, device);
    let target_lengths = Tensor::<1, Int>::full([4], SENTENCE_WIDTH as i64, device);
    ctc_loss(log_probs, targets, input_lengths, target_lengths, BLANK)
}

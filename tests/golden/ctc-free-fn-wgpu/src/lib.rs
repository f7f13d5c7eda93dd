//! Free-function ctc_loss calls at the 0.22 API, on a wgpu crate: every static form of width.
//! Comments and strings mention ctc_loss(log_probs, targets, ..) with width 5000: never flagged.

mod limits;

use burn::prelude::*;
use burn::tensor::module::ctc_loss;
use burn_tensor::module::ctc_loss as ctc;

use crate::limits::{BOOK_WIDTH, CHAPTER_WIDTH, HALF_BOOK};

const WIDE: usize = 4_096;
const NARROW: usize = 4_095;
const BATCH: usize = 8;

fn lengths(n: usize, v: i64, device: &Device) -> Tensor<1, Int> {
    Tensor::<1, Int>::full([n], v, device)
}

pub fn at_the_limit(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([BATCH, WIDE], device);
    let (il, tl) = (lengths(BATCH, 9000, device), lengths(BATCH, 10, device));
    ctc_loss(log_probs, targets, il, tl, 0) //~ ctc-target-capacity error
}

pub fn just_under(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([BATCH, NARROW], device);
    let (il, tl) = (lengths(BATCH, 9000, device), lengths(BATCH, 10, device));
    ctc_loss(log_probs, targets, il, tl, 0)
}

pub fn crate_const(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([BATCH, BOOK_WIDTH], device);
    let il = lengths(BATCH, 20_000, device);
    let tl = lengths(BATCH, 100, device);
    ctc_loss(
        //~^ ctc-target-capacity error
        log_probs,
        targets,
        il,
        tl,
        0,
    )
}

pub fn crate_const_in_range(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([BATCH, CHAPTER_WIDTH], device);
    ctc_loss(log_probs, targets, lengths(BATCH, 9000, device), lengths(BATCH, 9, device), 0)
}

pub fn division_is_unknown(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([BATCH, HALF_BOOK], device);
    ctc_loss(log_probs, targets, lengths(BATCH, 9000, device), lengths(BATCH, 9, device), 0)
}

pub fn let_arithmetic(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let words = 1024;
    let width = words * 4 + 1;
    let targets = Tensor::<2, Int>::full([BATCH, width], 1, device);
    ctc(log_probs, targets, lengths(BATCH, 9000, device), lengths(BATCH, 9, device), 0) //~ ctc-target-capacity error
}

pub fn from_tensor_data(log_probs: Tensor<3>, flat: Vec<i64>, device: &Device) -> Tensor<1> {
    let data = TensorData::new(flat, [2, 8192]);
    let targets = Tensor::<2, Int>::from_data(data, device);
    burn::tensor::module::ctc_loss(log_probs, targets, lengths(2, 20_000, device), lengths(2, 9, device), 0)
    //~^ ctc-target-capacity error
}

pub fn nested_array_literal(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let short = Tensor::<2, Int>::from_data([[1, 2, 3], [4, 5, 0]], device);
    let long = Tensor::<2, Int>::from_data([[1i64; 5000]; 2], device);
    let a = ctc_loss(log_probs.clone(), short, lengths(2, 50, device), lengths(2, 3, device), 0);
    let b = ctc_loss(log_probs, long, lengths(2, 20_000, device), lengths(2, 5000, device), 0); //~ ctc-target-capacity error
    a + b
}

pub fn reshaped(log_probs: Tensor<3>, labels: Tensor<1, Int>, device: &Device) -> Tensor<1> {
    let wide = labels.clone().reshape([2, 5000]);
    let inferred = labels.reshape([2, -1]);
    let x = ctc_loss(log_probs.clone(), wide, lengths(2, 20_000, device), lengths(2, 9, device), 0); //~ ctc-target-capacity error
    let y = ctc_loss(log_probs, inferred, lengths(2, 20_000, device), lengths(2, 9, device), 0);
    x + y
}

/// One utterance: a [S] label tensor unsqueezed to [1, S].
pub fn single_utterance(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let labels = Tensor::<1, Int>::from_data([3i64; 4200], device);
    let targets = labels.unsqueeze::<2>();
    ctc_loss(log_probs, targets, lengths(1, 9000, device), lengths(1, 4200, device), 0) //~ ctc-target-capacity error
}

/// The batch is padded to its longest item: only known at run time.
pub fn runtime_width(log_probs: Tensor<3>, items: &[Vec<i64>], device: &Device) -> Tensor<1> {
    let max_len = items.iter().map(|v| v.len()).max().unwrap_or(1);
    let flat: Vec<i64> = items.iter().flat_map(|v| {
        let mut v = v.clone();
        v.resize(max_len, 0);
        v
    }).collect();
    let targets = Tensor::<2, Int>::from_data(TensorData::new(flat, [items.len(), max_len]), device);
    let n = items.len();
    ctc_loss(log_probs, targets, lengths(n, 9000, device), lengths(n, 9, device), 0)
}

/// A parameter crosses a function boundary: not flagged even when every caller is wide.
pub fn passed_in(log_probs: Tensor<3>, targets: Tensor<2, Int>, device: &Device) -> Tensor<1> {
    ctc_loss(log_probs, targets, lengths(2, 9000, device), lengths(2, 9, device), 0)
}

pub fn shadowed(log_probs: Tensor<3>, items: Tensor<2, Int>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::zeros([2, 5000], device);
    let targets = items.clone();
    let first = ctc_loss(log_probs.clone(), targets, lengths(2, 9000, device), lengths(2, 9, device), 0);
    let targets = items;
    let targets = Tensor::<2, Int>::zeros([2, 4096], device).add_scalar(0) + targets.zeros_like();
    // the sum has the zeros' width 4096 whatever `items` is (or the `+` panics first)
    first + ctc_loss(log_probs, targets, lengths(2, 9000, device), lengths(2, 9, device), 0) //~ ctc-target-capacity error
}

pub fn mentions_only() -> &'static str {
    // ctc_loss(log_probs, Tensor::<2, Int>::zeros([2, 5000], device), il, tl, 0)
    "ctc_loss(log_probs, Tensor::<2, Int>::zeros([2, 5000], device), il, tl, 0)"
}

/// A local helper that happens to be called ctc_loss: not burn's.
mod scoring {
    pub fn ctc_loss(_a: &[f32], _b: [[i64; 5000]; 2]) -> f32 {
        0.0
    }

    pub fn score(a: &[f32]) -> f32 {
        ctc_loss(a, [[0; 5000]; 2])
    }
}

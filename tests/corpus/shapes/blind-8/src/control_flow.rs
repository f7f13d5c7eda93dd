//! Values fixed before use by control flow: `if`/`match` arms that correct a value, early
//! `return`s and `?` that leave before the call, guards that make a bad value unreachable,
//! `loop` with `break value`, `while` loops that bring a value into range, `assert!` before the
//! call, and values clamped with `min`/`max`/`clamp`.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig};
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig, HuberLoss, HuberLossConfig};
use burn::nn::{Dropout, DropoutConfig, GroupNorm, GroupNormConfig};
use burn::prelude::*;
use burn::tensor::Distribution;

use crate::hparams::{BATCH, CHANNELS, WIDTH};

/// Candidates the ranking was tuned with (on a wider vocabulary).
const REQUESTED_K: usize = 20;
/// The smoothing of the paper's table, in percent.
const SMOOTHING_PERCENT: f32 = 10.0;

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// `if` and `match` that correct a value before the call.
// ---------------------------------------------------------------------------------------------

pub fn top_requested(device: &Device) -> Tensor<2> {
    let mut k = REQUESTED_K;
    if k > WIDTH {
        k = WIDTH;
    }
    scores(device).topk(k, 1) // ok (k is lowered to 12 by the `if`)
}

pub fn top_by_expression(device: &Device) -> Tensor<2> {
    let k = if REQUESTED_K > WIDTH { WIDTH / 2 } else { REQUESTED_K };
    scores(device).topk(k, 1) // ok (20 > 12: k = 6)
}

pub fn top_both_arms_wide(device: &Device, long_vocab: bool) -> Tensor<2> {
    let k = if long_vocab { 2 * REQUESTED_K } else { REQUESTED_K };
    scores(device).topk(k, 1) // expect: topk-k-out-of-range (miss: k is set by an `if` on a parameter whose arms are both past the 12-wide row, 40 and 20)
}

pub fn stem_groups(device: &Device) -> GroupNorm {
    let groups = match CHANNELS % 7 {
        0 => 7,
        _ => 8,
    };
    GroupNormConfig::new(groups, CHANNELS).init(device) // ok (48 % 7 = 6: 8 groups)
}

pub enum Preset {
    Tiny,
    Base,
}

fn crop_for(preset: &Preset) -> usize {
    match preset {
        Preset::Tiny => 8,
        Preset::Base => 40,
    }
}

pub fn tiny_crop(device: &Device) -> Tensor<2> {
    let preset = Preset::Tiny;
    let len = crop_for(&preset);
    scores(device).narrow(1, 0, len) // ok (Tiny: 8)
}

pub fn guarded_arm(device: &Device) -> Tensor<2> {
    let len = match REQUESTED_K {
        k if k > WIDTH => WIDTH,
        k => k,
    };
    scores(device).narrow(1, 0, len) // ok (the guard arm: 12)
}

pub fn first_divisor_groups(device: &Device) -> GroupNorm {
    let mut groups = 1;
    for g in [7, 5, 6, 4] {
        if CHANNELS % g == 0 {
            groups = g;
            break;
        }
    }
    GroupNormConfig::new(groups, CHANNELS).init(device) // ok (7 and 5 do not divide 48: 6)
}

pub fn smoothing(device: &Device) -> CrossEntropyLoss {
    let alpha = if SMOOTHING_PERCENT > 1.0 { SMOOTHING_PERCENT / 100.0 } else { SMOOTHING_PERCENT };
    CrossEntropyLossConfig::new().with_smoothing(Some(alpha)).init(device) // ok (10 % read as 0.1)
}

// ---------------------------------------------------------------------------------------------
// Early returns, `?` and guards.
// ---------------------------------------------------------------------------------------------

fn crop_or_keep(x: Tensor<2>, len: usize) -> Tensor<2> {
    if len > x.dims()[1] {
        return x;
    }
    x.narrow(1, 0, len) // ok (a len past the width returns first)
}

pub fn crops(device: &Device) -> [Tensor<2>; 2] {
    let x = scores(device);
    [crop_or_keep(x.clone(), 8), crop_or_keep(x, 40)]
}

fn top_guarded(x: Tensor<2>, k: usize) -> Option<Tensor<2>> {
    let [_, n] = x.dims();
    if k > n {
        return None;
    }
    Some(x.topk(k, 1)) // ok (k > n returned None)
}

pub fn ranked(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    [3, REQUESTED_K, WIDTH].into_iter().filter_map(|k| top_guarded(x.clone(), k)).collect()
}

fn checked_len(len: usize) -> Option<usize> {
    (len <= WIDTH).then_some(len)
}

pub fn cropped(device: &Device) -> Option<Tensor<2>> {
    let len = checked_len(40)?;
    Some(scores(device).narrow(1, 0, len)) // ok (checked_len(40) is None: `?` returns first)
}

pub fn cropped_let_else(device: &Device) -> Tensor<2> {
    let x = scores(device);
    let Some(len) = checked_len(40) else {
        return x;
    };
    x.narrow(1, 0, len) // ok (checked_len(40) is None: the else returns first)
}

pub fn cropped_zero_guard(device: &Device) -> Option<Tensor<2>> {
    let len = 40;
    if len == 0 {
        return None;
    }
    Some(scores(device).narrow(1, 0, len)) // expect: narrow-out-of-range
}

pub fn warmup_dropout(step: usize) -> Dropout {
    let prob = 25.0;
    if step < 1000 {
        return DropoutConfig::new(0.0).init(); // ok
    }
    if prob > 1.0 {
        return DropoutConfig::new(prob / 100.0).init(); // ok (0.25)
    }
    DropoutConfig::new(prob).init() // ok (unreachable: 25 > 1 returned above)
}

// ---------------------------------------------------------------------------------------------
// `loop` with `break value` and `while` loops.
// ---------------------------------------------------------------------------------------------

pub fn halved_k(device: &Device) -> Tensor<2> {
    let mut k = 40;
    let k = loop {
        if k <= WIDTH {
            break k;
        }
        k /= 2;
    };
    scores(device).topk(k, 1) // ok (40, 20, 10: breaks with 10)
}

pub fn doubled_len(device: &Device) -> Tensor<2> {
    let mut len = 3;
    let len = loop {
        len *= 2;
        if len > WIDTH {
            break len;
        }
    };
    scores(device).narrow(1, 0, len) // expect: narrow-out-of-range (miss: len comes out of a `loop` by `break len`, 3 doubled until 24)
}

pub fn fitting_window(device: &Device) -> Tensor<2> {
    let mut size = 64;
    while size > WIDTH {
        size /= 2;
    }
    scores(device).narrow(1, WIDTH - size, size) // ok (64, 32, 16, 8: 8 at 4)
}

pub fn fitting_groups(device: &Device) -> Conv2d {
    let mut groups = 10;
    while CHANNELS % groups != 0 {
        groups -= 1;
    }
    Conv2dConfig::new([CHANNELS, 96], [3, 3]).with_groups(groups).init(device) // ok (10, 9, 8: 8 divides 48 and 96)
}

pub fn split_until_even(device: &Device) -> Vec<Tensor<2>> {
    let mut size = 0;
    while size == 0 || WIDTH % size != 0 {
        size += 4;
    }
    scores(device).split(size, 1) // ok (0, then 4: never 0)
}

// ---------------------------------------------------------------------------------------------
// `assert!` before the call, clamped values.
// ---------------------------------------------------------------------------------------------

pub fn asserted(device: &Device, extra: usize) -> Tensor<2> {
    let len = 4 + extra.min(8);
    assert!(len <= WIDTH, "crop of {len} wider than the row");
    scores(device).narrow(1, 0, len) // ok (at most 12)
}

pub fn asserted_k(device: &Device) -> Tensor<2> {
    let k = REQUESTED_K - 8;
    debug_assert!(k <= WIDTH, "top-{k} of {WIDTH} scores");
    scores(device).topk(k, 1) // ok (20 - 8 = 12)
}

pub fn clamped(device: &Device) -> [Tensor<2>; 3] {
    let x = scores(device);
    let k = REQUESTED_K.min(WIDTH);
    let len = 40usize.clamp(1, WIDTH);
    let start = (WIDTH + 5).min(WIDTH - 1);
    [x.clone().topk(k, 1), x.clone().narrow(1, 0, len), x.narrow(1, start, 1)] // ok (12, 12, and 11 + 1)
}

pub fn clamped_rates() -> (Dropout, HuberLoss) {
    let prob = (SMOOTHING_PERCENT as f64).clamp(0.0, 0.5);
    let delta = (1.0f32 - 1.5).max(0.0);
    (DropoutConfig::new(prob).init(), HuberLossConfig::new(delta).init()) // ok (0.5 and 0.0)
}

pub fn resize(height: usize) -> Interpolate2d {
    let size = if height > 64 { Some([64, 64]) } else { None };
    let scale = if size.is_none() { Some([2.0, 2.0]) } else { None };
    Interpolate2dConfig::new().with_output_size(size).with_scale_factor(scale).init() // ok (exactly one is set)
}

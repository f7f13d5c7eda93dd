//! Tensor ops with dim arguments on a batch of token features `[batch, seq, feat]`, logits
//! `[batch, classes]` and masks: reductions, arg-max, cumulative sums, flips, rolls, moves and
//! permutations, squeezes, narrows, splits, top-k, expands, slices with steps and padding, with
//! negative dims where burn wraps them (every dim taken as `impl AsIndex` counts from the end
//! when negative, within -rank..rank).

use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::ops::PadMode;

/// Token features of one batch.
pub const BATCH: usize = 4;
pub const SEQ: usize = 32;
pub const FEAT: usize = 16;
pub const CLASSES: usize = 8;

fn features(device: &Device) -> Tensor<3> {
    Tensor::<3>::random([BATCH, SEQ, FEAT], Distribution::Default, device)
}

fn logits(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, CLASSES], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// Reductions and arg-max.
// ---------------------------------------------------------------------------------------------

pub fn pooled(device: &Device) -> [Tensor<3>; 4] {
    let x = features(device);
    let mean = x.clone().mean_dim(-3); // ok (-3 is dim 0 of a rank-3 tensor)
    let sum = x.clone().sum_dim(1); // ok
    let running = x.clone().cumsum(-1); // ok
    let peak = x.max_dim(2); // ok
    [mean, sum, running, peak]
}

/// Sum over the features, written for the `[batch, heads, seq, feat]` layout.
pub fn feature_sum(device: &Device) -> Tensor<3> {
    let x = features(device);
    x.sum_dim(3) // expect: derived-tensor-all-dim-rank-boundserror-dimension-out
}

pub fn predictions(device: &Device) -> (Tensor<2, Int>, Tensor<2, Int>) {
    let z = logits(device);
    let best = z.clone().argmax(-1); // ok
    let worst = z.argmin(-3); // expect: derived-tensor-all-dim-rank-boundserror-dimension-out
    (best, worst)
}

pub fn mask_checks(device: &Device) -> (Tensor<2, Bool>, Tensor<2, Bool>) {
    let mask = logits(device).greater_elem(0.0);
    let any = mask.clone().any_dim(1); // ok
    let all = mask.all_dim(2); // expect: derived-tensor-all-dim-rank-boundserror-dimension-out
    (any, all)
}

// ---------------------------------------------------------------------------------------------
// Flips, rolls, moves and permutations.
// ---------------------------------------------------------------------------------------------

pub fn reversed(device: &Device) -> [Tensor<3>; 2] {
    let x = features(device);
    let backwards = x.clone().flip([1]); // ok
    let both = x.flip([0, -3]); // expect: flip-duplicate-axes
    [backwards, both]
}

pub fn shifted(device: &Device) -> [Tensor<3>; 2] {
    let x = features(device);
    let by_one = x.clone().roll(&[1, -1], &[1, 2]); // ok
    // shift the sequence and the features by the same step
    let both = x.roll(&[1], &[1, 2]); // expect: derived-tensor-roll-dims-dimensions-shifts-align
    [by_one, both]
}

pub fn channels_first(device: &Device) -> [Tensor<3>; 3] {
    let x = features(device);
    let moved = x.clone().movedim(2, 1); // ok
    let pair = x.clone().movedim(vec![0, 1], vec![2]); // expect: movedim-dims-length-mismatch
    let twice = x.movedim(vec![1, -2], vec![0, 2]); // expect: movedim-duplicate-dims
    [moved, pair, twice]
}

pub fn to_feature_major(device: &Device) -> [Tensor<3>; 2] {
    let x = features(device);
    let ok = x.clone().permute([0, -1, 1]); // ok
    let bad = x.permute([0, 2, -1]); // expect: permute-duplicate-axes
    [ok, bad]
}

pub fn permute_with(x: Tensor<3>, axes: [isize; 3]) -> Tensor<3> {
    x.permute(axes) // ok (axes from the caller)
}

// ---------------------------------------------------------------------------------------------
// Squeeze, unsqueeze and flatten.
// ---------------------------------------------------------------------------------------------

pub fn pooled_tokens(device: &Device) -> [Tensor<2>; 2] {
    let pooled = features(device).mean_dim(1); // [4, 1, 16]
    let tokens = pooled.clone().squeeze_dim::<2>(-2); // ok
    let wrong = pooled.squeeze_dim::<2>(-1); // expect: squeeze-dim-not-one
    [tokens, wrong]
}

pub fn heads_axis(device: &Device) -> [Tensor<4>; 2] {
    let x = features(device);
    let last = x.clone().unsqueeze_dim::<4>(-1); // ok (the new last axis)
    let past = x.unsqueeze_dim::<4>(5); // expect: derived-tensor-all-dim-rank-boundserror-dimension-out (miss: unsqueeze_dim, whose dim is wrapped against the output rank D + 1: 5 is outside -4..4)
    [last, past]
}

pub fn flat_tokens(device: &Device) -> [Tensor<2>; 2] {
    let x = features(device);
    let rows = x.clone().flatten::<2>(0, 1); // ok
    let swapped = x.flatten::<2>(-1, 1); // expect: flatten-start-after-end
    [rows, swapped]
}

// ---------------------------------------------------------------------------------------------
// Narrow, chunk, split.
// ---------------------------------------------------------------------------------------------

/// The window of the last `len` steps starting at `start`.
fn window(x: Tensor<3>, start: usize, len: usize) -> Tensor<3> {
    x.narrow(1, start, len) // expect: narrow-out-of-range
}

pub fn windows(device: &Device) -> [Tensor<3>; 2] {
    let x = features(device);
    [window(x.clone(), SEQ - 8, 8), window(x, SEQ - 8, 16)]
}

pub fn feature_halves(device: &Device) -> [Tensor<3>; 2] {
    let x = features(device);
    let low = x.clone().narrow(-1, 0, FEAT / 2); // ok
    let high = x.narrow(-1, FEAT / 2, FEAT / 2); // ok (8 + 8 = 16)
    [low, high]
}

pub fn empty_narrow(device: &Device) -> Tensor<3> {
    let x = features(device);
    x.narrow(0, 0, BATCH - 4) // expect: narrow-out-of-range
}

pub fn chunks(device: &Device) -> Vec<Tensor<3>> {
    let x = features(device);
    // more chunks than steps: burn returns one per step
    x.chunk(SEQ * 2, 1) // ok
}

pub fn segments(device: &Device) -> Vec<Tensor<3>> {
    let x = features(device);
    let segment = SEQ / 64;
    x.split(segment, 1) // expect: split-size-zero
}

pub fn segments_of(x: Tensor<3>, parts: usize) -> Vec<Tensor<3>> {
    let size = x.dims()[1] / parts.max(1);
    x.split(size.max(1), 1) // ok (at least 1)
}

pub fn sentence_parts(device: &Device) -> [Vec<Tensor<3>>; 2] {
    let x = features(device);
    let three = x.clone().split_with_sizes(vec![10, 10, 10], 1); // expect: split-sizes-sum-mismatch
    let exact = x.split_with_sizes(vec![10, 10, 12], -2); // ok
    [three, exact]
}

// ---------------------------------------------------------------------------------------------
// Top-k.
// ---------------------------------------------------------------------------------------------

pub fn top_classes(device: &Device) -> [Tensor<2>; 2] {
    let z = logits(device);
    let all = z.clone().topk(CLASSES, 1); // ok (k equal to the size)
    let ten = z.topk(10, -1); // expect: topk-k-out-of-range
    [all, ten]
}

pub fn ranked(device: &Device) -> [Tensor<2, Int>; 2] {
    let z = logits(device);
    let seven = z.clone().argtopk(CLASSES - 1, 1); // ok
    let every = z.argtopk(CLASSES, -1); // expect: argtopk-k-not-below-size
    [seven, every]
}

pub fn top_k_loop(device: &Device) -> Vec<Tensor<2>> {
    let z = logits(device);
    let mut out = Vec::new();
    for k in [1, 3, 5] {
        out.push(z.clone().topk(k, 1)); // ok
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Creation, repeat and expand.
// ---------------------------------------------------------------------------------------------

pub fn buffers(device: &Device) -> [Tensor<3>; 2] {
    let cache = Tensor::<3>::empty([BATCH, SEQ, FEAT], device); // ok
    // one buffer per batch, [seq, feat]
    let scratch = Tensor::<3>::empty([SEQ, FEAT], device); // expect: derived-tensor-empty-shape-dimensions-differ-rank
    [cache, scratch]
}

pub fn repeated(device: &Device) -> [Tensor<3>; 2] {
    let x = features(device);
    let twice = x.clone().repeat_dim(-1, 2); // ok
    let none = x.repeat_dim(0, 0); // ok (an empty tensor)
    [twice, none]
}

pub fn broadcast_bias(device: &Device) -> [Tensor<3>; 3] {
    let bias = Tensor::<2>::zeros([1, FEAT], device);
    let over_batch = bias.clone().expand([BATCH, SEQ, FEAT]); // ok
    let keep = bias.clone().expand([BATCH as i64, -1, -1]); // ok
    let wrong = bias.expand([BATCH, SEQ, 2 * FEAT]); // expect: expand-incompatible-shape
    [over_batch, keep, wrong]
}

// ---------------------------------------------------------------------------------------------
// Slices with ranges and steps, padding.
// ---------------------------------------------------------------------------------------------

pub fn strided(device: &Device) -> [Tensor<3>; 3] {
    let x = features(device);
    let every_other = x.clone().slice(s![.., 0..SEQ;2]); // ok
    let past_end = x.clone().slice([0..BATCH, 0..100]); // ok (the end is clamped to 32)
    let step = SEQ / 64;
    let frozen = x.slice(s![.., ..;step as isize]); // expect: slice-step-zero
    [every_other, past_end, frozen]
}

pub fn logits_crop(device: &Device) -> [Tensor<2>; 2] {
    let z = logits(device);
    let first = z.clone().slice([0..2, 0..4]); // ok
    let batched = z.slice([0..1, 0..2, 0..4]); // expect: slice-too-many-ranges
    [first, batched]
}

pub fn padded(device: &Device) -> [Tensor<2>; 3] {
    let z = logits(device);
    let lr = z.clone().pad((1, 1, 0, 0), PadMode::Constant(0.0)); // ok (left, right, top, bottom)
    let rows = z.clone().pad([(0, 0), (2, 2)], PadMode::Edge); // ok
    let nchw = z.pad([(0, 0), (0, 0), (1, 1)], PadMode::Constant(0.0)); // expect: pad-too-many-pairs
    [lr, rows, nchw]
}

/// The crate's own ring buffer with a `roll` like burn's.
pub struct Ring {
    items: Vec<f32>,
}

impl Ring {
    pub fn roll(&mut self, shifts: &[usize], _dims: &[usize]) {
        for s in shifts {
            self.items.rotate_left(*s % self.items.len().max(1));
        }
    }
}

pub fn own_roll() -> Ring {
    let mut ring = Ring { items: vec![1.0, 2.0, 3.0] };
    ring.roll(&[1], &[0, 1]); // ok (the crate's own roll)
    ring
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic]
    fn narrow_past_the_end_panics() {
        let device = Default::default();
        let x = Tensor::<2>::zeros([4, 3], &device);
        let _ = x.narrow(1, 1, 3); // ok (a should_panic test)
    }
}

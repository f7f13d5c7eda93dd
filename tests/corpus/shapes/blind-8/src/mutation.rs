//! Values changed after their `let`: compound assignment (`+=`, `-=`, `*=`, `/=`) on locals and
//! on config fields, `&mut` helpers, `std::mem::swap`/`replace`, `Vec` edits (push, insert,
//! retain, sort, dedup, remove, truncate), struct fields set after construction, builders whose
//! later setter overrides an earlier one, and `Option::take`/`replace`.

use burn::data::dataset::InMemDataset;
use burn::data::dataset::transform::{SamplerDataset, SamplerDatasetOptions, Windows};
use burn::nn::attention::{MultiHeadAttention, MultiHeadAttentionConfig};
use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig};
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig};
use burn::nn::{Dropout, DropoutConfig, GroupNorm, GroupNormConfig};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::ops::PadMode;

use crate::hparams::{BATCH, CHANNELS, WIDTH};

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// Compound assignment on locals and config fields.
// ---------------------------------------------------------------------------------------------

pub fn trimmed(device: &Device) -> Tensor<2> {
    let mut len = 24;
    len -= 12;
    scores(device).narrow(1, 0, len) // ok (24 - 12 = 12)
}

pub fn scaled_k(device: &Device) -> Tensor<2> {
    let mut k = 30;
    k /= 3;
    k += 1;
    scores(device).topk(k, 1) // ok (30 / 3 + 1 = 11)
}

pub fn widened(device: &Device) -> Tensor<2> {
    let mut len = 6;
    len *= 4;
    scores(device).narrow(1, 0, len) // expect: narrow-out-of-range
}

pub fn halved_groups(device: &Device) -> GroupNorm {
    let mut config = GroupNormConfig::new(96, CHANNELS);
    config.num_groups /= 4;
    config.init(device) // ok (96 / 4 = 24 divides 48)
}

pub fn bumped_groups(device: &Device) -> GroupNorm {
    let mut config = GroupNormConfig::new(5, CHANNELS);
    config.num_groups += 1;
    config.init(device) // ok (5 + 1 = 6 divides 48)
}

pub fn doubled_groups(device: &Device) -> GroupNorm {
    let mut config = GroupNormConfig::new(16, 40);
    config.num_groups *= 2;
    config.init(device) // expect: group-norm-groups-divide-channels (miss: a config field multiplied in place after new, 16 times 2 = 32 groups for 40 channels)
}

pub fn percent_dropout() -> Dropout {
    let mut config = DropoutConfig::new(30.0);
    config.prob /= 100.0;
    config.init() // ok (30 % read as 0.3)
}

pub fn resized() -> Interpolate2d {
    let mut config = Interpolate2dConfig::new();
    config.output_size = Some([64, 64]);
    config.init() // ok (the size is set after new())
}

// ---------------------------------------------------------------------------------------------
// `&mut` helpers, `swap` and `replace`.
// ---------------------------------------------------------------------------------------------

fn halve(n: &mut usize) {
    *n /= 2;
}

fn fit(len: &mut usize, width: usize) {
    if *len > width {
        *len = width;
    }
}

pub fn halved_crop(device: &Device) -> Tensor<2> {
    let mut len = 24;
    halve(&mut len);
    scores(device).narrow(1, 0, len) // ok (24 / 2 = 12)
}

pub fn fitted_crop(device: &Device) -> Tensor<2> {
    let mut len = 100;
    fit(&mut len, WIDTH);
    scores(device).narrow(1, 0, len) // ok (fit lowers 100 to 12)
}

pub fn swapped_norm(device: &Device) -> GroupNorm {
    let (mut groups, mut channels) = (CHANNELS, 6);
    std::mem::swap(&mut groups, &mut channels);
    GroupNormConfig::new(groups, channels).init(device) // ok (6 groups of 48 channels after the swap)
}

pub fn replaced_k(device: &Device) -> Tensor<2> {
    let mut k = 40;
    let tuned = std::mem::replace(&mut k, 4);
    println!("tuned on a wider vocabulary: top-{tuned}");
    scores(device).topk(k, 1) // ok (k = 4 since the replace)
}

// ---------------------------------------------------------------------------------------------
// `Vec` edits.
// ---------------------------------------------------------------------------------------------

pub fn pushed_sizes(device: &Device) -> Vec<Tensor<2>> {
    let mut sizes = vec![4, 4];
    sizes.push(4);
    scores(device).split_with_sizes(sizes, 1) // ok (4 + 4 + 4 = 12)
}

pub fn retained_sizes(device: &Device) -> Vec<Tensor<2>> {
    let mut sizes = vec![8, 2, 5, 2];
    sizes.retain(|&s| s != 5);
    scores(device).split_with_sizes(sizes, 1) // ok (8 + 2 + 2 = 12)
}

pub fn deduped_sizes(device: &Device) -> Vec<Tensor<2>> {
    let mut sizes = vec![8, 4, 4];
    sizes.sort();
    sizes.dedup();
    scores(device).split_with_sizes(sizes, 1) // ok (4 + 8 = 12)
}

pub fn inserted_sizes(device: &Device) -> Vec<Tensor<2>> {
    let mut sizes = vec![4, 4];
    sizes.insert(0, 6);
    scores(device).split_with_sizes(sizes, 1) // expect: split-sizes-sum-mismatch
}

pub fn values_extended(device: &Device) -> Tensor<2> {
    let mut values = vec![0.0f32; 10];
    values.extend([1.0, 2.0]);
    Tensor::from_data(TensorData::new(values, [3, 4]), device) // ok (10 + 2 = 12 values)
}

pub fn pairs_removed(device: &Device) -> Tensor<2> {
    let mut pairs: Vec<(usize, usize)> = vec![(0, 0), (0, 0), (1, 1)];
    pairs.remove(0);
    scores(device).pad(pairs, PadMode::Constant(0.0)) // ok (two pairs for a rank-2 tensor)
}

pub fn parts_truncated(device: &Device) -> Tensor<2> {
    let mut parts = vec![scores(device), scores(device), Tensor::<2>::zeros([3, 5], device)];
    parts.truncate(2);
    Tensor::cat(parts, 0) // ok (the [3, 5] part is dropped)
}

pub fn parts_popped(device: &Device) -> Tensor<3> {
    let mut parts = vec![scores(device), scores(device)];
    parts.push(Tensor::<2>::zeros([BATCH, 2 * WIDTH], device));
    let _wide = parts.pop();
    Tensor::stack(parts, 0) // ok (the [4, 24] part is popped)
}

// ---------------------------------------------------------------------------------------------
// Struct fields set after construction, builders, `Option::take`/`replace`.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct CropPlan {
    pub start: usize,
    pub len: usize,
}

impl Default for CropPlan {
    fn default() -> Self {
        Self { start: 0, len: 40 }
    }
}

impl CropPlan {
    pub fn shrink(&mut self) {
        self.len /= 5;
    }
}

pub fn planned_crop(device: &Device) -> Tensor<2> {
    let mut plan = CropPlan { start: 2, ..Default::default() };
    plan.len = 8;
    scores(device).narrow(1, plan.start, plan.len) // ok (len = 8 since the assignment)
}

pub fn shrunk_crop(device: &Device) -> Tensor<2> {
    let mut plan = CropPlan::default();
    plan.shrink();
    scores(device).narrow(1, plan.start, plan.len) // ok (40 / 5 = 8)
}

pub fn attention(device: &Device) -> MultiHeadAttention {
    MultiHeadAttentionConfig::new(64, 8).with_dropout(50.0).with_dropout(0.1).init(device) // ok (the later with_dropout(0.1) wins)
}

pub fn attention_in_percent(device: &Device) -> MultiHeadAttention {
    MultiHeadAttentionConfig::new(64, 8).with_dropout(0.1).with_dropout(10.0).init(device) // expect: dropout-probability-range
}

pub fn smoothed(device: &Device) -> CrossEntropyLoss {
    let config = CrossEntropyLossConfig::new().with_smoothing(Some(10.0));
    let config = config.with_smoothing(Some(0.1));
    config.init(device) // ok (0.1 replaces 10)
}

pub fn unsmoothed(device: &Device) -> CrossEntropyLoss {
    let mut config = CrossEntropyLossConfig::new().with_smoothing(Some(10.0));
    let _paper = config.smoothing.take();
    config.init(device) // ok (take() leaves None)
}

pub fn overridden_k(device: &Device) -> Tensor<2> {
    let mut k = Some(40);
    let _tuned = k.replace(6);
    scores(device).topk(k.unwrap(), 1) // ok (6 since the replace)
}

pub fn windows_counted(items: Vec<f32>) -> usize {
    let mut size = 0;
    size += 7;
    InMemDataset::new(items).windows(size).count() // ok (0 + 7)
}

pub fn resampled(items: Vec<f32>) -> SamplerDataset<InMemDataset<f32>, f32> {
    let mut ratio = -1.0;
    ratio *= -1.5;
    SamplerDataset::new(InMemDataset::new(items), SamplerDatasetOptions::default().with_size_ratio(ratio)) // ok (-1 * -1.5 = 1.5)
}

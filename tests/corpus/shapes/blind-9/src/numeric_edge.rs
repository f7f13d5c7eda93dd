//! Values exactly at the boundary burn accepts: probabilities and smoothing of 0.0 and 1.0 (and
//! 1.0 plus half an epsilon, which rounds back to 1.0), `narrow` to exactly the end, `topk` with
//! k == size, `argtopk` one below it, reshapes with the exact element count, groups == channels,
//! kernels as wide as the input, as many pad pairs as the rank, split sizes that sum exactly,
//! `Same` padding with odd kernels, integer division and modulo, float rounding and truncating
//! `as` casts, `usize::MAX` / `EPSILON` sentinels, and negative dims that wrap to valid ones.

use burn::data::dataset::InMemDataset;
use burn::data::dataset::transform::Windows;
use burn::nn::conv::{Conv2dConfig, Conv3dConfig};
use burn::nn::loss::{BinaryCrossEntropyLossConfig, CrossEntropyLossConfig, HuberLossConfig};
use burn::nn::pool::MaxPool2dConfig;
use burn::nn::{
    DropoutConfig, GaussianNoiseConfig, GroupNormConfig, PaddingConfig2d, PaddingConfig3d,
    PositionalEncodingConfig, RmsNormConfig, RotaryEncodingConfig,
};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::ops::PadMode;

const BATCH: usize = 4;
const WIDTH: usize = 12;

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

fn tokens(device: &Device) -> Tensor<3> {
    Tensor::<3>::random([BATCH, 6, 8], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// Probabilities and smoothing at 0.0 and 1.0.
// ---------------------------------------------------------------------------------------------

pub fn dropout_bounds() {
    let _off = DropoutConfig::new(0.0).init(); // ok
    let _all = DropoutConfig::new(1.0).init(); // ok (prob == 1.0 is accepted)
    let _rounded = DropoutConfig::new(1.0 + f64::EPSILON / 2.0).init(); // ok (1 + 2^-53 rounds to 1.0)
}

pub fn dropout_past_one() {
    let _ = DropoutConfig::new(1.0 + f64::EPSILON).init(); // expect: dropout-probability-range (miss: 1.0 + f64::EPSILON, the associated float const is not evaluated)
}

pub fn smoothing_bounds(device: &Device) {
    let _none = CrossEntropyLossConfig::new().with_smoothing(Some(0.0)).init(device); // ok
    let _full = CrossEntropyLossConfig::new().with_smoothing(Some(1.0)).init(device); // ok
    let _f32 = CrossEntropyLossConfig::new()
        .with_smoothing(Some(1.0 + f32::EPSILON / 2.0))
        .init(device); // ok (in f32, 1 + 2^-24 rounds to 1.0)
    let _sum = CrossEntropyLossConfig::new()
        .with_smoothing(Some(0.7 + 0.2 + 0.1))
        .init(device); // ok (1.0 in f32)
    let _binary = BinaryCrossEntropyLossConfig::new().with_smoothing(Some(1.0)).init(device); // ok
}

pub fn losses_at_zero() {
    let _huber = HuberLossConfig::new(0.0).init(); // ok (delta >= 0)
    let _noise = GaussianNoiseConfig::new(0.0).init(); // ok (+0.0 is not sign-negative)
}

pub fn noise_negative_zero() {
    let std = 0.0 * -1.0;
    let _ = GaussianNoiseConfig::new(std).init(); // expect: gaussian-noise-negative-std
}

pub fn epsilons(device: &Device) {
    let _rms = RmsNormConfig::new(WIDTH).with_epsilon(f32::EPSILON as f64).init(device); // ok
    let _tiny = RmsNormConfig::new(WIDTH).with_epsilon(f64::MIN_POSITIVE).init(device); // ok
    let _rope = RotaryEncodingConfig::new(64, 16).with_theta(f32::EPSILON).init(device); // ok
    let _pe = PositionalEncodingConfig::new(16)
        .with_max_sequence_size(512)
        .with_max_timescale(512)
        .init(device); // ok (timescale == length)
}

// ---------------------------------------------------------------------------------------------
// Shape ops exactly at the end.
// ---------------------------------------------------------------------------------------------

pub fn narrow_to_end(device: &Device) -> [Tensor<2>; 3] {
    let x = scores(device);
    let tail = x.clone().narrow(1, 4, 8); // ok (4 + 8 = 12)
    let last = x.clone().narrow(-1, WIDTH - 1, 1); // ok (the last column, dim -1 is 1)
    let rows = x.narrow(0, BATCH - 1, 1); // ok
    [tail, last, rows]
}

pub fn narrow_one_past(device: &Device) -> Tensor<2> {
    scores(device).narrow(1, 5, 8) // expect: narrow-out-of-range
}

pub fn top_all(device: &Device) -> [Tensor<2>; 2] {
    let x = scores(device);
    [x.clone().topk(WIDTH, 1), x.topk(WIDTH, -1)] // ok (k == size is accepted by topk)
}

pub fn arg_top(device: &Device) -> Tensor<2, Int> {
    scores(device).argtopk(WIDTH - 1, -1) // ok (11 < 12)
}

pub fn arg_top_all(device: &Device) -> Tensor<2, Int> {
    scores(device).argtopk(WIDTH, 1) // expect: argtopk-k-not-below-size
}

pub fn exact_reshapes(device: &Device) -> [Tensor<3>; 2] {
    let x = scores(device);
    let cube = x.clone().reshape([3, 2, 8]); // ok (48 values)
    let row = x.reshape([-1, 48]).unsqueeze_dim::<3>(0); // ok ([1, 48] then [1, 1, 48])
    [cube, row]
}

pub fn flattened(device: &Device) -> [Tensor<2>; 2] {
    let x = tokens(device);
    let rows = x.clone().flatten::<2>(1, -1); // ok (-1 is dim 2: [4, 48])
    let all = x.flatten::<1>(0, -1).reshape([BATCH * 6, 8]); // ok (192 values)
    [rows, all]
}

pub fn reordered(device: &Device) -> [Tensor<3>; 2] {
    let x = tokens(device);
    let swapped = x.clone().permute([0, -1, 1]); // ok ([0, 2, 1])
    let flipped = x.flip([0, -1]); // ok (dims 0 and 2)
    [swapped, flipped]
}

pub fn row_sums(device: &Device) -> Tensor<1> {
    scores(device).sum_dim(-1).squeeze_dim::<1>(-1) // ok (sum_dim keeps a dim of 1)
}

pub fn scalars(device: &Device) -> (f32, f32) {
    let x = scores(device);
    let total = x.clone().sum().into_scalar::<f32>(); // ok (one value)
    let corner = x.narrow(0, 3, 1).narrow(1, 11, 1).into_scalar::<f32>(); // ok ([1, 1])
    (total, corner)
}

pub fn from_values(device: &Device) -> Tensor<2> {
    let data = TensorData::new(vec![0.5_f32; BATCH * WIDTH], [BATCH, WIDTH]); // ok (48 values)
    Tensor::<2>::from_data(data, device)
}

pub fn joined(device: &Device) -> [Tensor<2>; 2] {
    let x = scores(device);
    let extra = Tensor::<2>::zeros([BATCH, 3], device);
    let wide = Tensor::cat(vec![x.clone(), extra], -1); // ok (along dim 1: 12 + 3)
    let bias = Tensor::<2>::ones([1, WIDTH], device).expand([BATCH, WIDTH]); // ok
    [wide, x + bias]
}

pub fn cropped(device: &Device) -> Tensor<2> {
    scores(device).slice([0..BATCH, 0..WIDTH]) // ok (two ranges for rank 2, each to the end)
}

pub fn padded(device: &Device) -> [Tensor<2>; 2] {
    let x = scores(device);
    let both = x.clone().pad([(0, 0), (1, 1)], PadMode::Constant(0.0)); // ok (two pairs, rank 2)
    let tuple = x.pad((2, 2, 1, 1), PadMode::Constant(0.0)); // ok (the 4-tuple pads the last two dims)
    [both, tuple]
}

pub fn padded_cube(device: &Device) -> Tensor<3> {
    tokens(device).pad([(1, 1), (0, 0), (2, 2)], PadMode::Constant(0.0)) // ok (three pairs, rank 3)
}

pub fn splits(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    let mut parts = x.clone().split_with_sizes(vec![5, 4, 3], 1); // ok (5 + 4 + 3 = 12)
    parts.extend(x.clone().split_with_sizes(vec![WIDTH], -1)); // ok
    parts.extend(x.clone().split(WIDTH, 1)); // ok (one piece)
    parts.extend(x.split(WIDTH + 1, 1)); // ok (a size past the dim gives one piece)
    parts
}

// ---------------------------------------------------------------------------------------------
// Modules at the boundary.
// ---------------------------------------------------------------------------------------------

pub fn group_bounds(device: &Device) {
    let _per_channel = GroupNormConfig::new(48, 48).init(device); // ok (groups == channels)
    let _one = GroupNormConfig::new(1, 48).init(device); // ok
    let _depthwise = Conv2dConfig::new([48, 96], [3, 3]).with_groups(48).init(device); // ok (48 divides 48 and 96)
}

pub fn full_kernel(device: &Device) -> Tensor<2> {
    let images = Tensor::<4>::random([1, 3, 8, 8], Distribution::Default, device);
    let conv = Conv2dConfig::new([3, 16], [8, 8]).init(device);
    let pooled = MaxPool2dConfig::new([8, 8]).init().forward(images.clone()); // ok ([1, 3, 1, 1])
    let _ = pooled.reshape([1, 3]); // ok
    conv.forward(images).reshape([1, 16]) // ok (kernel == input: [1, 16, 1, 1])
}

pub fn same_padding(device: &Device) {
    let _a = Conv2dConfig::new([3, 8], [3, 5])
        .with_padding(PaddingConfig2d::Same)
        .init(device); // ok
    let _b = Conv2dConfig::new([3, 8], [1, 1])
        .with_padding(PaddingConfig2d::Same)
        .init(device); // ok
    let _c = Conv3dConfig::new([3, 8], [3, 3, 3])
        .with_padding(PaddingConfig3d::Same)
        .init(device); // ok (odd kernel)
    let _d = Conv3dConfig::new([3, 8], [1, 3, 5])
        .with_padding(PaddingConfig3d::Same)
        .init(device); // ok
}

// ---------------------------------------------------------------------------------------------
// Integer arithmetic, float rounding and casts.
// ---------------------------------------------------------------------------------------------

pub fn integer_arithmetic(device: &Device) -> [Tensor<2>; 3] {
    let x = scores(device);
    let whole = x.clone().narrow(1, 0, WIDTH / 5 * 5); // ok (12 / 5 * 5 = 10)
    let modulo = x.clone().topk(WIDTH % 7 + 6, 1); // ok (5 + 6 = 11)
    let odd = x.narrow(1, 1, (WIDTH - 1) / 2 * 2 + 1); // ok (1 + 11 = 12)
    [whole, modulo, odd]
}

pub fn float_rounding(device: &Device) -> [Tensor<2>; 3] {
    let x = scores(device);
    let len = ((0.1_f64 + 0.2) * 10.0) as usize; // 3.0000000000000004 truncates to 3
    let tail = x.clone().narrow(1, 9, len); // ok (9 + 3 = 12)
    let k = 12.9_f32 as usize;
    let top = x.clone().topk(k, 1); // ok (12.9 truncates to 12)
    let ratio = (WIDTH as f32 * 0.999) as usize;
    let head = x.narrow(1, 1, ratio); // ok (11.988 truncates to 11: 1 + 11)
    [tail, top, head]
}

pub fn truncating_casts(device: &Device) -> [Tensor<2>; 2] {
    let x = scores(device);
    let wrapped = 260_usize as u8 as usize; // 260 mod 256 = 4
    let quarter = x.clone().narrow(1, 8, wrapped); // ok (8 + 4 = 12)
    let start = (-3.7_f32) as usize; // saturates to 0
    let all = x.narrow(1, start, WIDTH); // ok (start 0)
    [quarter, all]
}

pub fn sentinels(device: &Device) -> [Tensor<2>; 2] {
    let x = scores(device);
    let limit = usize::MAX;
    let k = limit.min(WIDTH);
    let top = x.clone().topk(k, 1); // ok (usize::MAX capped at 12)
    let len = WIDTH.saturating_sub(usize::MAX).max(1);
    let first = x.narrow(1, 0, len); // ok (0 raised to 1)
    [top, first]
}

pub fn dataset_windows() -> usize {
    let dataset = InMemDataset::new(vec![1.0_f32, 2.0, 3.0]);
    let singles = dataset.windows(1).count(); // ok
    let none = dataset.windows(WIDTH).count(); // ok (wider than the dataset: no windows, no panic)
    singles + none
}

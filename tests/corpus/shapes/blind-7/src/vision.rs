//! A CIFAR-sized CNN classifier and a small U-Net decoder in the generic backend style: conv
//! configs with padding, strides and groups, batch norm, max and adaptive pooling, a linear head
//! sized by a helper that computes the flattened width, dropout, interpolation to resize, and
//! the skip connection joined by `cat`.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::interpolate::{Interpolate2dConfig, InterpolateMode};
use burn::nn::pool::{AdaptiveAvgPool2dConfig, MaxPool2d, MaxPool2dConfig};
use burn::nn::{
    BatchNorm, BatchNormConfig, Dropout, DropoutConfig, GroupNorm, GroupNormConfig, Linear,
    LinearConfig, PaddingConfig2d, Relu,
};
use burn::prelude::*;
use burn::tensor::backend::Backend;

pub mod consts {
    pub const IMAGE_SIZE: usize = 32;
    pub const IN_CHANNELS: usize = 3;
    pub const NUM_CLASSES: usize = 10;
    pub const BATCH: usize = 8;
    /// Dropout of the head, as a percentage in the experiment sheet.
    pub const HEAD_DROPOUT_PERCENT: f64 = 30.0;
}

use consts::*;

#[derive(Config, Debug)]
pub struct CnnConfig {
    #[config(default = 10)]
    pub num_classes: usize,
    #[config(default = 32)]
    pub base_channels: usize,
    #[config(default = 32)]
    pub image_size: usize,
    #[config(default = 0.5)]
    pub dropout: f64,
    #[config(default = 3)]
    pub n_pools: usize,
}

/// Width of the flattened feature map after `n_pools` 2x2 poolings.
pub fn flat_width(image_size: usize, channels: usize, n_pools: usize) -> usize {
    let side = image_size >> n_pools;
    channels * side * side
}

#[derive(Module, Debug)]
pub struct Cnn<B: Backend> {
    conv1: Conv2d<B>,
    conv2: Conv2d<B>,
    conv3: Conv2d<B>,
    bn1: BatchNorm<B>,
    bn2: BatchNorm<B>,
    bn3: BatchNorm<B>,
    pool: MaxPool2d,
    dropout: Dropout,
    head: Linear<B>,
    activation: Relu,
    flat: usize,
}

impl CnnConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Cnn<B> {
        let c = self.base_channels;
        let flat = flat_width(self.image_size, 4 * c, self.n_pools);
        Cnn {
            conv1: Conv2dConfig::new([IN_CHANNELS, c], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device),
            conv2: Conv2dConfig::new([c, 2 * c], [3, 3])
                .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                .init(device),
            conv3: Conv2dConfig::new([2 * c, 4 * c], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .with_groups(2)
                .init(device), // ok (64 and 128 channels both split in 2)
            bn1: BatchNormConfig::new(c).init(device),
            bn2: BatchNormConfig::new(2 * c).init(device),
            bn3: BatchNormConfig::new(4 * c).init(device),
            pool: MaxPool2dConfig::new([2, 2]).init(),
            dropout: DropoutConfig::new(self.dropout).init(), // ok
            head: LinearConfig::new(flat, self.num_classes).init(device),
            activation: Relu::new(),
            flat,
        }
    }
}

impl<B: Backend> Cnn<B> {
    pub fn forward(&self, images: Tensor<B, 4>) -> Tensor<B, 2> {
        let [batch, _, _, _] = images.dims();
        let x = self.pool.forward(self.activation.forward(self.bn1.forward(self.conv1.forward(images))));
        let x = self.pool.forward(self.activation.forward(self.bn2.forward(self.conv2.forward(x))));
        let x = self.pool.forward(self.activation.forward(self.bn3.forward(self.conv3.forward(x))));
        let x = x.reshape([batch, self.flat]); // ok (the image size comes with the caller's batch)
        self.head.forward(self.dropout.forward(x))
    }
}

pub fn cifar_model<B: Backend>(device: &B::Device) -> Cnn<B> {
    CnnConfig::new().init(device)
}

/// The head width checked on a fixed batch before training: two stages of conv + pool.
pub fn head_width_probe<B: Backend>(device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 2>) {
    let conv1 = Conv2dConfig::new([IN_CHANNELS, 32], [3, 3]).with_padding(PaddingConfig2d::Same).init::<B>(device);
    let conv2 = Conv2dConfig::new([32, 64], [3, 3]).with_padding(PaddingConfig2d::Same).init::<B>(device);
    let pool = MaxPool2dConfig::new([2, 2]).init();
    let images = Tensor::<B, 4>::zeros([BATCH, IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE], device);
    let x = pool.forward(conv1.forward(images));
    let x = pool.forward(conv2.forward(x));
    let flat = x.clone().reshape([BATCH, flat_width(IMAGE_SIZE, 64, 2)]); // ok
    let three_pools = x.reshape([BATCH, flat_width(IMAGE_SIZE, 64, 3)]); // expect: reshape-incompatible-shape
    (flat, three_pools)
}

// ---------------------------------------------------------------------------------------------
// Stems, norms and dropout.
// ---------------------------------------------------------------------------------------------

/// One group per colour channel in the stem.
pub fn rgb_grouped_stem<B: Backend>(device: &B::Device) -> Conv2d<B> {
    Conv2dConfig::new([IN_CHANNELS, 32], [3, 3]).with_groups(IN_CHANNELS).init(device) // expect: conv-groups-divide-channels
}

pub fn rgb_grouped_stem_48<B: Backend>(device: &B::Device) -> Conv2d<B> {
    Conv2dConfig::new([IN_CHANNELS, 48], [3, 3]).with_groups(IN_CHANNELS).init(device) // ok (48 splits in 3)
}

pub fn patchify<B: Backend>(device: &B::Device) -> Conv2d<B> {
    Conv2dConfig::new([32, 32], [4, 4])
        .with_padding(PaddingConfig2d::Same)
        .init(device) // ok (Conv2d pads an even kernel asymmetrically)
}

pub fn grouped_from_cli<B: Backend>(device: &B::Device) -> Conv2d<B> {
    let groups: usize = std::env::args().nth(1).and_then(|g| g.parse().ok()).unwrap_or(1);
    Conv2dConfig::new([32, 64], [3, 3]).with_groups(groups).init(device) // ok (groups from the command line)
}

pub fn block_norm<B: Backend>(device: &B::Device) -> GroupNorm<B> {
    let cfg = CnnConfig::new();
    GroupNormConfig::new(32, cfg.base_channels * 3 / 2).init(device) // expect: group-norm-groups-divide-channels
}

pub fn block_norm_16<B: Backend>(device: &B::Device) -> GroupNorm<B> {
    let cfg = CnnConfig::new();
    GroupNormConfig::new(16, cfg.base_channels * 3 / 2).init(device) // ok (48 in 16 groups of 3)
}

pub fn head_dropouts() -> (Dropout, Dropout) {
    let typo = DropoutConfig::new(HEAD_DROPOUT_PERCENT / 10.0).init(); // expect: dropout-probability-range
    let fraction = DropoutConfig::new(HEAD_DROPOUT_PERCENT / 100.0).init(); // ok
    (typo, fraction)
}

// ---------------------------------------------------------------------------------------------
// Pooling, ranking and layout of the classifier's outputs.
// ---------------------------------------------------------------------------------------------

pub fn pooled_features<B: Backend>(device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 3>) {
    let feats = Tensor::<B, 4>::ones([BATCH, 64, 8, 8], device);
    let gap = AdaptiveAvgPool2dConfig::new([1, 1]).init().forward(feats.clone());
    let vector = gap.squeeze_dim::<3>(3).squeeze_dim::<2>(2); // ok
    let grid = AdaptiveAvgPool2dConfig::new([2, 2]).init().forward(feats);
    let grid_vector = grid.squeeze_dim::<3>(3); // expect: squeeze-dim-not-one
    (vector, grid_vector)
}

pub fn rank_classes<B: Backend>(device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 2, Int>, Tensor<B, 2, Int>) {
    let logits = Tensor::<B, 2>::zeros([BATCH, NUM_CLASSES], device);
    let top5 = logits.clone().topk(5, 1); // ok
    let top9 = logits.clone().argtopk(NUM_CLASSES - 1, 1); // ok (9 is below the 10 classes)
    let ranking = logits.argtopk(NUM_CLASSES, 1); // expect: argtopk-k-not-below-size
    (top5, top9, ranking)
}

pub fn channels_last<B: Backend>(device: &B::Device) -> (Tensor<B, 4>, Tensor<B, 4>) {
    let images = Tensor::<B, 4>::zeros([BATCH, IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE], device);
    let nhwc = images.clone().permute([0, 2, 3, -3]); // ok (-3 is axis 1)
    let typo = images.permute([0, 2, -1, 3]); // expect: permute-duplicate-axes
    (nhwc, typo)
}

// ---------------------------------------------------------------------------------------------
// A U-Net style decoder step: the skip joined to the upsampled bottleneck.
// ---------------------------------------------------------------------------------------------

#[derive(Config, Debug)]
pub struct UNetConfig {
    #[config(default = 16)]
    pub base: usize,
    #[config(default = 64)]
    pub image_size: usize,
}

pub fn unet_probe<B: Backend>(device: &B::Device) -> Vec<Tensor<B, 4>> {
    let cfg = UNetConfig::new();
    let c = cfg.base;
    let images = Tensor::<B, 4>::zeros([2, IN_CHANNELS, cfg.image_size, cfg.image_size], device);
    let enc = Conv2dConfig::new([IN_CHANNELS, c], [3, 3]).with_padding(PaddingConfig2d::Same).init::<B>(device);
    let mid = Conv2dConfig::new([c, 2 * c], [3, 3]).init::<B>(device);
    let down = MaxPool2dConfig::new([2, 2]).init();

    let skip = enc.forward(images);
    let bottom = mid.forward(down.forward(skip.clone()));
    let up_scaled = Interpolate2dConfig::new()
        .with_scale_factor(Some([2.0, 2.0]))
        .init()
        .forward(bottom.clone()); // ok
    let up_sized = Interpolate2dConfig::new()
        .with_output_size(Some([cfg.image_size, cfg.image_size]))
        .init()
        .forward(bottom.clone()); // ok

    let joined = Tensor::cat(vec![skip.clone(), up_sized.clone()], 1); // ok
    let misjoined = Tensor::cat(vec![skip.clone(), up_scaled.clone()], 1); // expect: cat-mismatched-shapes

    // or crop the skip to the upsampled size, as in the original U-Net
    let offset = (cfg.image_size - 60) / 2;
    let cropped = skip.clone().narrow(2, offset, 60).narrow(3, offset, 60); // ok
    let overrun = skip.clone().narrow(2, offset, cfg.image_size); // expect: narrow-out-of-range
    let cropped_join = Tensor::cat(vec![cropped, up_scaled.clone()], 1); // ok

    let pyramid = Tensor::stack::<5>(vec![up_sized.clone(), up_sized.clone().mul_scalar(0.5)], 1); // ok
    let mixed = Tensor::stack::<5>(vec![up_sized, up_scaled], 1); // expect: stack-mismatched-shapes

    let resized = Interpolate2dConfig::new().with_mode(InterpolateMode::Nearest).init().forward(bottom); // expect: interpolate2d-missing-output-size-and-scale
    let _ = (pyramid, mixed);
    vec![joined, misjoined, overrun, cropped_join, resized]
}

/// The crate's own thumbnail grid, named like burn's op.
pub struct ThumbnailGrid {
    pub cells: Vec<f32>,
}

impl ThumbnailGrid {
    pub fn reshape(&self, shape: [usize; 2]) -> Vec<Vec<f32>> {
        self.cells.chunks(shape[1].max(1)).map(|row| row.to_vec()).collect()
    }
}

pub fn thumbnails() -> Vec<Vec<f32>> {
    let grid = ThumbnailGrid { cells: vec![0.0; 16] };
    grid.reshape([3, 7]) // ok (the crate's own reshape)
}

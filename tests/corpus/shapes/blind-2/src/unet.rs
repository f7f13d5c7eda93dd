//! A small U-Net for binary segmentation: conv blocks with group norms, max-pool downsampling,
//! a transposed-conv and a nearest upsampling, skip connections joined with `Tensor::cat`.
//! Also the shape probes and the tiling used for inference on large images.
use burn::nn::conv::{Conv2d, Conv2dConfig, ConvTranspose2d, ConvTranspose2dConfig};
use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig, InterpolateMode};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{GroupNorm, GroupNormConfig, PaddingConfig2d, Relu};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::sigmoid;

use crate::hparams::{BASE_CHANNELS, HEAD_GROUPS, IMG_SIZE, IN_CHANNELS};

/// Two 3x3 convolutions, each followed by a group norm and a ReLU.
#[derive(Config, Debug)]
pub struct ConvBlockConfig {
    pub in_channels: usize,
    pub out_channels: usize,
    #[config(default = 8)]
    pub groups: usize,
}

#[derive(Module, Debug)]
pub struct ConvBlock {
    conv1: Conv2d,
    norm1: GroupNorm,
    conv2: Conv2d,
    norm2: GroupNorm,
    act: Relu,
}

impl ConvBlockConfig {
    pub fn init(&self, device: &Device) -> ConvBlock {
        let same = PaddingConfig2d::Same;
        ConvBlock {
            conv1: Conv2dConfig::new([self.in_channels, self.out_channels], [3, 3]).with_padding(same.clone()).init(device), // ok
            norm1: GroupNormConfig::new(self.groups, self.out_channels).init(device), // expect: group-norm-groups-divide-channels
            conv2: Conv2dConfig::new([self.out_channels, self.out_channels], [3, 3]).with_padding(same).init(device), // ok
            norm2: GroupNormConfig::new(self.groups, self.out_channels).init(device), // expect: group-norm-groups-divide-channels
            act: Relu::new(),
        }
    }
}

impl ConvBlock {
    pub fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let x = self.act.forward(self.norm1.forward(self.conv1.forward(x)));
        self.act.forward(self.norm2.forward(self.conv2.forward(x)))
    }
}

#[derive(Config, Debug)]
pub struct UNetConfig {
    #[config(default = 3)]
    pub in_channels: usize,
    #[config(default = 1)]
    pub n_classes: usize,
    #[config(default = 16)]
    pub base: usize,
}

#[derive(Module, Debug)]
pub struct UNet {
    stem: Conv2d,
    enc1: ConvBlock,
    enc2: ConvBlock,
    bottleneck: ConvBlock,
    pool: MaxPool2d,
    up2: ConvTranspose2d,
    dec2: ConvBlock,
    up1: Interpolate2d,
    dec1: ConvBlock,
    head: Conv2d,
}

impl UNetConfig {
    pub fn init(&self, device: &Device) -> UNet {
        let b = self.base;
        UNet {
            stem: Conv2dConfig::new([self.in_channels, b], [3, 3]).with_padding(PaddingConfig2d::Same).init(device), // ok
            enc1: ConvBlockConfig::new(b, b).init(device),
            enc2: ConvBlockConfig::new(b, 2 * b).init(device),
            bottleneck: ConvBlockConfig::new(2 * b, 4 * b).init(device),
            pool: MaxPool2dConfig::new([2, 2]).init(),
            up2: ConvTranspose2dConfig::new([4 * b, 2 * b], [2, 2]).with_stride([2, 2]).init(device), // ok
            dec2: ConvBlockConfig::new(4 * b, 2 * b).init(device),
            up1: Interpolate2dConfig::new().with_scale_factor(Some([2.0, 2.0])).with_mode(InterpolateMode::Nearest).init(), // ok
            // upsampled decoder (2b) + first skip (b)
            dec1: ConvBlockConfig::new(3 * b, b).with_groups(HEAD_GROUPS).init(device),
            head: Conv2dConfig::new([b, self.n_classes], [1, 1]).init(device), // ok
        }
    }
}

impl UNet {
    /// Images `[batch, 3, H, W]` (H and W divisible by 4) to a mask `[batch, n_classes, H, W]`.
    pub fn forward(&self, images: Tensor<4>) -> Tensor<4> {
        let x = self.stem.forward(images);
        let s1 = self.enc1.forward(x);
        let s2 = self.enc2.forward(self.pool.forward(s1.clone()));
        let x = self.bottleneck.forward(self.pool.forward(s2.clone()));
        let x = self.up2.forward(x);
        let x = self.dec2.forward(Tensor::cat(vec![x, s2], 1)); // ok (H and W come at run time)
        let x = self.up1.forward(x);
        let x = self.dec1.forward(Tensor::cat(vec![x, s1], 1)); // ok
        sigmoid(self.head.forward(x))
    }
}

pub fn build(device: &Device) -> UNet {
    UNetConfig::new().init(device)
}

/// Depthwise-separable stem of the mobile variant: one filter group per input colour.
pub fn lite_stem(device: &Device) -> (Conv2d, Conv2d) {
    let depthwise = Conv2dConfig::new([IN_CHANNELS, BASE_CHANNELS], [3, 3]).with_groups(IN_CHANNELS).with_padding(PaddingConfig2d::Same).init(device); // expect: conv-groups-divide-channels
    let pointwise = Conv2dConfig::new([BASE_CHANNELS, BASE_CHANNELS], [1, 1]).init(device); // ok
    (depthwise, pointwise)
}

/// Depthwise conv of the second stage: 16 groups over 16 -> 32 channels.
pub fn lite_stage(device: &Device) -> Conv2d {
    Conv2dConfig::new([BASE_CHANNELS, 2 * BASE_CHANNELS], [3, 3]).with_groups(BASE_CHANNELS).init(device) // ok
}

/// An even kernel with same padding (Conv2d pads asymmetrically there).
pub fn patch_conv(device: &Device) -> Conv2d {
    Conv2dConfig::new([BASE_CHANNELS, BASE_CHANNELS], [4, 4]).with_padding(PaddingConfig2d::Same).init(device) // ok
}

/// One norm per encoder level for the attention-gate variant: GroupNorm(32, C) as in the paper.
pub fn level_norms(device: &Device) -> Vec<GroupNorm> {
    [16, 32, 64, 128]
        .iter()
        .map(|&channels| GroupNormConfig::new(32, channels).init(device)) // expect: group-norm-groups-divide-channels
        .collect()
}

/// The same, for the wide variant that starts at 32 channels.
pub fn wide_level_norms(device: &Device) -> Vec<GroupNorm> {
    let mut norms = Vec::new();
    for channels in [32, 64, 128, 256] {
        norms.push(GroupNormConfig::new(32, channels).init(device)); // ok
    }
    norms
}

/// Center-crops a skip connection (the original U-Net's valid-padding crop).
fn center_crop(x: Tensor<4>, offset: usize, size: usize) -> Tensor<4> {
    let x = x.narrow(2, offset, size); // expect: narrow-out-of-range
    x.narrow(3, offset, size) // expect: narrow-out-of-range
}

/// Feature-map sizes of the plain (valid-padding) encoder on a dummy image.
pub fn probe_valid_encoder(device: &Device) {
    let image = Tensor::<4>::random([1, IN_CHANNELS, IMG_SIZE, IMG_SIZE], Distribution::Default, device);
    let conv = Conv2dConfig::new([IN_CHANNELS, BASE_CHANNELS], [3, 3]).init(device); // ok
    let pool = MaxPool2dConfig::new([2, 2]).init();
    let upsample = Interpolate2dConfig::new().with_output_size(Some([IMG_SIZE, IMG_SIZE])).init(); // ok

    let skip = conv.forward(image); // [1, 16, 62, 62]
    let down = pool.forward(skip.clone()); // [1, 16, 31, 31]
    let up = upsample.forward(down); // [1, 16, 64, 64]

    let joined = Tensor::cat(vec![up.clone(), skip.clone()], 1); // expect: cat-mismatched-shapes
    let doubled = Tensor::cat(vec![up.clone(), up], 1); // ok
    let stacked_rows = Tensor::cat(vec![skip.clone(), skip.clone()], 2); // ok

    let cropped = center_crop(skip.clone(), 1, 60);
    let too_far = center_crop(skip, 4, 60);
    println!(
        "{:?} {:?} {:?} {:?} {:?}",
        joined.dims(),
        doubled.dims(),
        stacked_rows.dims(),
        cropped.dims(),
        too_far.dims()
    );
}

/// Cuts a 96-pixel-wide strip into 32-pixel tiles, the last one flush with the right edge.
pub fn tile_strip(model: &UNet, device: &Device) -> Vec<Tensor<4>> {
    let strip = Tensor::<4>::zeros([1, IN_CHANNELS, 32, 96], device);
    let mut masks = Vec::new();
    for start in [0, 32, 64, 80] {
        let tile = strip.clone().narrow(3, start, 32); // expect: narrow-out-of-range
        masks.push(model.forward(tile));
    }
    for start in (0..96).step_by(32) {
        let tile = strip.clone().narrow(3, start, 32); // ok
        masks.push(model.forward(tile));
    }
    masks
}

/// Tiles of a caller's image; the tile size comes from the command line.
pub fn tile_image(model: &UNet, image: Tensor<4>, tile: usize) -> Vec<Tensor<4>> {
    let [_, _, _, width] = image.dims();
    (0..width / tile)
        .map(|i| model.forward(image.clone().narrow(3, i * tile, tile))) // ok (width and tile at run time)
        .collect()
}

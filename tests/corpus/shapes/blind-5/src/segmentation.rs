//! A DeepLab-style segmentation head: a strided backbone stub, ASPP branches with dilated
//! Conv2d `cat`ed on the channels, a decoder joining low-level features, upsampling back to the
//! input size, a per-pixel `argmax` and a soft dice loss on one-hot targets.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::interpolate::{Interpolate2d, Interpolate2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig};
use burn::nn::{GroupNorm, GroupNormConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::{relu, softmax};
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions, PadMode};

use crate::hparams::vision::{NORM_GROUPS, OUTPUT_STRIDE};

/// The label sets the head is trained on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelSet {
    Voc,
    Cityscapes,
}

impl LabelSet {
    pub const fn num_classes(self) -> usize {
        match self {
            LabelSet::Voc => 21,
            LabelSet::Cityscapes => 19,
        }
    }

    /// Class counts of the stuff and thing partitions the panoptic merge treats apart.
    pub fn partition(self) -> Vec<usize> {
        match self {
            LabelSet::Voc => vec![1, 20],
            LabelSet::Cityscapes => vec![11, 8],
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "voc" => Some(LabelSet::Voc),
            "cityscapes" => Some(LabelSet::Cityscapes),
            _ => None,
        }
    }
}

/// The atrous pyramid's settings.
pub mod atrous {
    /// Dilation rates at output stride 8.
    pub static RATES: [usize; 2] = [6, 12];
    /// Channels of each branch.
    pub const BRANCH_WIDTH: usize = 48;
}

/// A 3x3 convolution of stride 2 that halves the height and the width.
fn down(channels: [usize; 2], device: &Device) -> Conv2d {
    Conv2dConfig::new(channels, [3, 3])
        .with_stride([2, 2])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .init(device)
}

/// A stand-in for the pretrained backbone: strides 2, 4 and 8.
#[derive(Module, Debug)]
pub struct Backbone {
    stem: Conv2d,
    layer2: Conv2d,
    layer3: Conv2d,
}

impl Backbone {
    pub fn new(device: &Device) -> Self {
        Self {
            stem: down([3, 64], device),
            layer2: down([64, 128], device),
            layer3: down([128, 256], device),
        }
    }

    /// Returns the stride-2 features and the stride-8 features.
    pub fn forward(&self, images: Tensor<4>) -> (Tensor<4>, Tensor<4>) {
        let low = relu(self.stem.forward(images));
        let x = relu(self.layer2.forward(low.clone()));
        (low, relu(self.layer3.forward(x)))
    }
}

/// Atrous spatial pyramid pooling.
#[derive(Module, Debug)]
pub struct Aspp {
    branch1: Conv2d,
    branch6: Conv2d,
    branch12: Conv2d,
    pool: AdaptiveAvgPool2d,
    pool_proj: Conv2d,
    pool_norm: GroupNorm,
    project: Conv2d,
}

impl Aspp {
    pub fn new(channels: usize, device: &Device) -> Self {
        let width = atrous::BRANCH_WIDTH;
        let [r6, r12] = atrous::RATES;
        Self {
            branch1: Conv2dConfig::new([channels, width], [1, 1]).init(device),
            branch6: Conv2dConfig::new([channels, width], [3, 3]).with_dilation([r6, r6]).with_padding(PaddingConfig2d::Same).init(device),
            branch12: Conv2dConfig::new([channels, width], [3, 3]).with_dilation([r12, r12]).with_padding(PaddingConfig2d::Explicit(r12, r12, r12, r12)).init(device),
            pool: AdaptiveAvgPool2dConfig::new([1, 1]).init(),
            pool_proj: Conv2dConfig::new([channels, width], [1, 1]).init(device),
            // batch statistics of a 1x1 map are useless at batch size 1: normalise by groups
            pool_norm: GroupNormConfig::new(NORM_GROUPS, width).init(device), // expect: group-norm-groups-divide-channels
            project: Conv2dConfig::new([4 * width, width], [1, 1]).init(device),
        }
    }

    pub fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [_, _, height, width] = x.dims();
        let b1 = self.branch1.forward(x.clone());
        let b6 = self.branch6.forward(x.clone());
        let b12 = self.branch12.forward(x.clone());
        let pooled = self.pool_norm.forward(self.pool_proj.forward(self.pool.forward(x)));
        let pooled = interpolate(pooled, [height, width], InterpolateOptions::new(InterpolateMode::Nearest));
        let x = Tensor::cat(vec![b1, b6, b12, pooled], 1); // expect: cat-mismatched-shapes (miss: ASPP branches built by the crate's own constructors (Same padding with dilation): their output shapes are not followed)
        relu(self.project.forward(x))
    }
}

/// The mobile head: the 1x1 branch and the widest rate only.
fn lite_aspp(x: Tensor<4>, device: &Device) -> Tensor<4> {
    let [_, channels, _, _] = x.dims();
    let width = atrous::BRANCH_WIDTH;
    let rate = atrous::RATES[1];
    let padding = PaddingConfig2d::Explicit(rate, rate, rate, rate);
    let b1 = Conv2dConfig::new([channels, width], [1, 1]).init(device).forward(x.clone());
    let b12 = Conv2dConfig::new([channels, width], [3, 3]).with_dilation([rate, rate]).with_padding(padding).init(device).forward(x);
    Tensor::cat(vec![b1, b12], 1) // ok (explicit padding keeps 32x32)
}

/// The decoder: ASPP features upsampled and added to projected low-level features.
#[derive(Module, Debug)]
pub struct Decoder {
    reduce: Conv2d,
    low_proj: Conv2d,
    up: Interpolate2d,
    norm: GroupNorm,
    classifier: Conv2d,
}

/// Decoder widths; `..DecoderSpec::default()` for the rest.
#[derive(Clone, Debug)]
pub struct DecoderSpec {
    pub high_channels: usize,
    pub low_channels: usize,
    pub width: usize,
    pub groups: usize,
    pub labels: LabelSet,
}

impl Default for DecoderSpec {
    fn default() -> Self {
        Self {
            high_channels: 2 * atrous::BRANCH_WIDTH,
            low_channels: 64,
            width: atrous::BRANCH_WIDTH,
            groups: 16,
            labels: LabelSet::Cityscapes,
        }
    }
}

impl DecoderSpec {
    pub fn init(&self, device: &Device) -> Decoder {
        Decoder {
            reduce: Conv2dConfig::new([self.high_channels, self.width], [1, 1]).init(device),
            low_proj: Conv2dConfig::new([self.low_channels, self.width], [1, 1]).init(device),
            up: Interpolate2dConfig::new().with_scale_factor(Some([2.0, 2.0])).init(), // ok (a scale factor only)
            norm: GroupNormConfig::new(self.groups, self.width).init(device), // ok (16 groups of 3 channels)
            classifier: Conv2dConfig::new([self.width, self.labels.num_classes()], [1, 1]).init(device),
        }
    }
}

impl Decoder {
    /// `high`: ASPP features at stride 8, `low`: stem features at stride 2.
    pub fn forward(&self, high: Tensor<4>, low: Tensor<4>) -> Tensor<4> {
        let up = self.up.forward(self.reduce.forward(high));
        let low = self.low_proj.forward(low);
        let x = self.norm.forward(up + low); // expect: binary-op-incompatible-shapes (miss: features inside a module's forward whose sizes come from callers through other crate modules)
        self.classifier.forward(relu(x))
    }
}

fn images(device: &Device) -> Tensor<4> {
    Tensor::<4>::random([2, 3, 256, 256], Distribution::Default, device)
}

pub fn segment(device: &Device) -> Tensor<4> {
    let (_, high) = Backbone::new(device).forward(images(device));
    Aspp::new(256, device).forward(high)
}

pub fn segment_lite(device: &Device) -> Tensor<4> {
    let (low, high) = Backbone::new(device).forward(images(device));
    let high = lite_aspp(high, device);
    DecoderSpec::default().init(device).forward(high, low)
}

/// Joins ASPP features with low-level ones on the low-level grid.
pub fn fuse_resized(device: &Device) -> Tensor<4> {
    let high = Tensor::<4>::random([2, 48, 32, 32], Distribution::Default, device);
    let low = Tensor::<4>::random([2, 48, 128, 128], Distribution::Default, device);
    let [_, _, height, width] = low.dims();
    let options = InterpolateOptions::new(InterpolateMode::Nearest);
    interpolate(high, [height, width], options) + low // ok (resized to 128x128 first)
}

/// How the logits reach the output resolution.
#[derive(Clone, Copy, Debug)]
pub enum Upsample {
    ToInput,
    Factor(f32),
}

fn upsampler(mode: Upsample, input: [usize; 2]) -> Interpolate2dConfig {
    match mode {
        Upsample::ToInput => Interpolate2dConfig::new().with_output_size(Some(input)),
        Upsample::Factor(f) => Interpolate2dConfig::new().with_scale_factor(Some([f, f])),
    }
}

pub fn full_resolution(logits: Tensor<4>, input: [usize; 2]) -> Tensor<4> {
    upsampler(Upsample::ToInput, input).init().forward(logits) // ok (the output size only)
}

/// The output stride's factor, and the exact size to be safe.
pub fn full_resolution_pinned(logits: Tensor<4>, input: [usize; 2]) -> Tensor<4> {
    upsampler(Upsample::Factor(4.0), input).with_output_size(Some(input)).init().forward(logits) // expect: interpolate2d-missing-output-size-and-scale (miss: a config a crate function returns for an enum, then set by a chained setter: not read)
}

fn logits(device: &Device) -> Tensor<4> {
    Tensor::<4>::random([2, LabelSet::Cityscapes.num_classes(), 64, 64], Distribution::Default, device)
}

/// The class map in the exporter's channels-last layout: [batch, height, width].
fn export_classes(logits: Tensor<4>) -> Tensor<3, Int> {
    let channels_last = logits.permute([0, 2, 3, 1]);
    channels_last.argmax(3).squeeze_dim::<3>(1) // expect: squeeze-dim-not-one
}

pub fn class_maps(device: &Device) -> (Tensor<3, Int>, Tensor<3, Int>) {
    let logits = logits(device);
    let map = logits.clone().argmax(1).squeeze_dim::<3>(1); // ok (argmax keeps the class axis with size 1)
    (map, export_classes(logits))
}

/// Pixels as rows of class logits, for a pixel-wise cross-entropy.
pub fn flat_pixels(device: &Device) -> Tensor<2> {
    let classes = LabelSet::Cityscapes.num_classes();
    let logits = Tensor::<4>::zeros([2, classes, 64, 64], device);
    logits.permute([0, 2, 3, 1]).reshape([-1, classes as i64]) // ok (19 logits per pixel)
}

pub fn flat_pixels_relabelled(device: &Device) -> Tensor<2> {
    let classes = LabelSet::Voc.num_classes();
    let logits = {
        let classes = LabelSet::Cityscapes.num_classes();
        Tensor::<4>::zeros([2, classes, 64, 64], device)
    };
    logits.permute([0, 2, 3, 1]).reshape([-1, classes as i64]) // expect: reshape-incompatible-shape
}

pub fn flat_pixels_cli(device: &Device) -> Option<Tensor<2>> {
    let labels = LabelSet::parse(&std::env::args().nth(1)?)?;
    let classes = labels.num_classes();
    let logits = Tensor::<4>::zeros([2, classes, 64, 64], device);
    Some(logits.permute([0, 2, 3, 1]).reshape([-1, classes as i64])) // ok (classes from the command line, on both sides)
}

/// Soft dice of each image and class: [batch, classes].
fn dice_per_class(logits: Tensor<4>, targets: Tensor<3, Int>) -> Tensor<2> {
    let [_, classes, _, _] = logits.dims();
    let probs = softmax(logits, 1);
    let one_hot = targets.one_hot::<4>(classes).float().permute([0, 3, 1, 2]);
    let inter = (probs.clone() * one_hot.clone()).sum_dim(3).sum_dim(2); // ok (one-hot moved to the class axis)
    let total = (probs + one_hot).sum_dim(3).sum_dim(2);
    ((inter * 2.0 + 1.0) / (total + 1.0)).flatten(1, 3)
}

pub fn dice_loss(device: &Device) -> (f32, f32) {
    let targets = Tensor::<3, Int>::random([2, 64, 64], Distribution::Uniform(0.0, 19.0), device);
    let dice = dice_per_class(logits(device), targets);
    let per_image = dice.clone().mean_dim(1);
    let overall = 1.0 - dice.mean().into_scalar::<f32>(); // ok (a mean of everything)
    let worst = 1.0 - per_image.into_scalar::<f32>(); // expect: into-scalar-multiple-elements
    (overall, worst)
}

/// Pads an image [channels, height, width] at the bottom and right to a multiple of the
/// output stride.
fn pad_to_stride(image: Tensor<3>) -> Tensor<3> {
    let [_, height, width] = image.dims();
    let pad_h = height.next_multiple_of(OUTPUT_STRIDE) - height;
    let pad_w = width.next_multiple_of(OUTPUT_STRIDE) - width;
    image.pad([(0, 0), (0, 0), (0, pad_h), (0, pad_w)], PadMode::Constant(0.0)) // expect: pad-too-many-pairs
}

pub fn prepare_photo(device: &Device) -> Tensor<4> {
    let image = Tensor::<3>::random([3, 250, 250], Distribution::Default, device);
    pad_to_stride(image).unsqueeze()
}

pub fn prepare_batch(device: &Device) -> (Tensor<4>, Tensor<3>) {
    let batch = Tensor::<4>::random([2, 3, 250, 250], Distribution::Default, device);
    let image = Tensor::<3>::random([3, 250, 250], Distribution::Default, device);
    let padded = batch.pad([(0, 0), (0, 0), (0, 6), (0, 6)], PadMode::Constant(0.0)); // ok (a pair per axis of the batch)
    let single = image.pad((0, 6, 0, 6), PadMode::Constant(0.0)); // ok (left, right, top, bottom)
    (padded, single)
}

/// Stuff and thing logits for the panoptic merge.
pub fn panoptic_parts(device: &Device) -> (Vec<Tensor<4>>, Vec<Tensor<4>>) {
    let logits = logits(device);
    let parts = logits.clone().split_with_sizes(LabelSet::Cityscapes.partition(), 1); // ok (11 + 8 = 19)
    let voc_parts = logits.split_with_sizes(LabelSet::Voc.partition(), 1); // expect: split-sizes-sum-mismatch
    (parts, voc_parts)
}

/// A class mask kept on the host, one row per image.
pub struct Mask {
    rows: Vec<Vec<u8>>,
}

impl Mask {
    pub fn squeeze_dim(self, dim: usize) -> Vec<u8> {
        self.rows.into_iter().nth(dim).unwrap_or_default()
    }
}

pub fn first_mask() -> Vec<u8> {
    let mask = Mask {
        rows: vec![vec![0, 1, 1], vec![2, 2, 0]],
    };
    mask.squeeze_dim(1) // ok (the crate's own squeeze_dim)
}

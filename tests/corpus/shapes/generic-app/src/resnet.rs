//! A small ResNet in burn 0.21's generic style: residual blocks built in `init` from their
//! config, a 1x1 shortcut when the channels change, the residual sum, a stem on a fixed image
//! size, the head after a global pool. Modules and tensors are generic over `B: Backend`.
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig};
use burn::nn::{GroupNorm, GroupNormConfig, Linear, LinearConfig, PaddingConfig2d, Relu};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

const IMAGE_SIZE: usize = 32;
const STEM_CHANNELS: usize = 16;

#[derive(Module, Debug)]
pub struct BasicBlock<B: Backend> {
    conv1: Conv2d<B>,
    conv2: Conv2d<B>,
    norm: GroupNorm<B>,
    shortcut: Option<Conv2d<B>>,
    activation: Relu,
}

#[derive(Config, Debug)]
pub struct BasicBlockConfig {
    in_channels: usize,
    out_channels: usize,
    #[config(default = 8)]
    groups: usize,
}

impl BasicBlockConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> BasicBlock<B> {
        let shortcut = if self.in_channels != self.out_channels {
            Some(Conv2dConfig::new([self.in_channels, self.out_channels], [1, 1]).init(device))
        } else {
            None
        };
        BasicBlock {
            conv1: Conv2dConfig::new([self.in_channels, self.out_channels], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device), // ok
            conv2: Conv2dConfig::new([self.out_channels, self.out_channels], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device), // ok
            norm: GroupNormConfig::new(self.groups, self.out_channels).init(device), // expect: group-norm-groups-divide-channels
            shortcut,
            activation: Relu::new(),
        }
    }
}

impl<B: Backend> BasicBlock<B> {
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 4> {
        let identity = match &self.shortcut {
            Some(conv) => conv.forward(x.clone()),
            None => x.clone(),
        };
        let out = self.activation.forward(self.norm.forward(self.conv1.forward(x)));
        let out = self.norm.forward(self.conv2.forward(out));
        self.activation.forward(out + identity) // ok
    }
}

#[derive(Module, Debug)]
pub struct ResNet<B: Backend> {
    stem: Conv2d<B>,
    blocks: Vec<BasicBlock<B>>,
    pool: AdaptiveAvgPool2d,
    head: Linear<B>,
}

#[derive(Config, Debug)]
pub struct ResNetConfig {
    num_classes: usize,
}

impl ResNetConfig {
    /// 16 -> 32 -> 20 -> 64 channels: the second block's 20 channels do not split into its
    /// norm's default 8 groups.
    pub fn init<B: Backend>(&self, device: &B::Device) -> ResNet<B> {
        let blocks = vec![
            BasicBlockConfig::new(STEM_CHANNELS, 32).init(device),
            BasicBlockConfig::new(32, 20).init(device),
            BasicBlockConfig::new(20, 64).with_groups(4).init(device),
        ];
        ResNet {
            stem: Conv2dConfig::new([3, STEM_CHANNELS], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device),
            blocks,
            pool: AdaptiveAvgPool2dConfig::new([1, 1]).init(),
            head: LinearConfig::new(64, self.num_classes).init(device),
        }
    }
}

impl<B: Backend> ResNet<B> {
    pub fn forward(&self, images: Tensor<B, 4>) -> Tensor<B, 2> {
        let [batch_size, _, _, _] = images.dims();
        let mut x = self.stem.forward(images);
        for block in &self.blocks {
            x = block.forward(x);
        }
        let x = self.pool.forward(x);
        let x = x.reshape([batch_size, 64]); // ok
        self.head.forward(x)
    }
}

/// The stem on a fixed batch of images, then the ways its output is cut and joined.
pub fn stem_probe<B: Backend>(device: &B::Device) -> Vec<Tensor<B, 2>> {
    let images = Tensor::<B, 4>::zeros([8, 3, IMAGE_SIZE, IMAGE_SIZE], device);
    let stem = Conv2dConfig::new([3, STEM_CHANNELS], [3, 3])
        .with_padding(PaddingConfig2d::Same)
        .init(device);
    let pool = AdaptiveAvgPool2dConfig::new([1, 1]).init();
    let pooled = pool.forward(stem.forward(images)); // [8, 16, 1, 1]
    let flat = pooled.clone().reshape([8, STEM_CHANNELS]); // ok
    let wrong = pooled.reshape([8, STEM_CHANNELS * 2]); // expect: reshape-incompatible-shape
    let head = LinearConfig::new(STEM_CHANNELS, 10).init(device);
    let logits = head.forward(flat.clone()); // [8, 10]
    let top = logits.clone().topk(5, 1); // ok
    let too_many = logits.clone().topk(12, 1); // expect: topk-k-out-of-range
    let projected = flat.clone().matmul(Tensor::<B, 2>::ones([STEM_CHANNELS, 4], device)); // ok
    let crossed = logits.clone().matmul(flat.clone()); // expect: matmul-inner-dim-mismatch
    vec![flat, wrong, top, too_many, projected, crossed]
}

/// Grouped convolutions on the stem's channels.
pub fn grouped_stem<B: Backend>(device: &B::Device) -> (Conv2d<B>, Conv2d<B>) {
    let depthwise = Conv2dConfig::new([STEM_CHANNELS, STEM_CHANNELS], [3, 3])
        .with_groups(STEM_CHANNELS)
        .init(device); // ok
    let grouped = Conv2dConfig::new([STEM_CHANNELS, 24], [3, 3])
        .with_groups(3)
        .init(device); // expect: conv-groups-divide-channels
    (depthwise, grouped)
}

/// A training step on an autodiff backend: features from the caller's images (run time).
pub fn features_step<B: AutodiffBackend>(model: &ResNet<B>, images: Tensor<B, 4>) -> B::Gradients {
    let [batch_size, channels, _, _] = images.dims();
    let logits = model.forward(images.clone());
    let crop = images.narrow(2, 0, IMAGE_SIZE); // ok (the image size comes at run time)
    let flat = crop.reshape([batch_size, channels, IMAGE_SIZE * IMAGE_SIZE]); // ok
    let loss = logits.sum() + flat.mean();
    loss.backward()
}

//! A small vision transformer: patches embedded by a strided Conv2d, flattened and swapped to
//! tokens, a cls token `cat`ed in front, learned positions added by broadcasting, encoder
//! blocks built on burn's multi-head attention, the cls token `narrow`ed out for the head.

use burn::data::dataloader::batcher::Batcher;
use burn::module::{Initializer, Param};
use burn::nn::attention::{MhaInput, MultiHeadAttention, MultiHeadAttentionConfig};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{GroupNorm, GroupNormConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::gelu;

use crate::hparams::{CHANNELS, EMBED, IMAGE, NUM_CLASSES, PATCH};

mod layers {
    use super::{IMAGE, PATCH};

    /// Patches along each side of the image.
    pub const GRID: usize = IMAGE / PATCH;
    /// Patch tokens, without the cls token.
    pub const TOKENS: usize = GRID * GRID;
    pub const MLP_RATIO: usize = 4;
}

/// A convolutional stem tried before the patch embedding (hybrid ViT).
mod stem {
    use burn::nn::{GroupNorm, GroupNormConfig};
    use burn::prelude::*;

    pub const GROUPS: usize = 16;
    pub static WIDTHS: [usize; 3] = [24, 48, 96];

    pub fn norms(device: &Device) -> Vec<GroupNorm> {
        let mut norms = Vec::new();
        for width in WIDTHS {
            norms.push(GroupNormConfig::new(GROUPS, width).init(device)); // expect: group-norm-groups-divide-channels
        }
        norms
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Tiny,
    Small,
    Base,
}

#[derive(Debug, Clone)]
pub struct VitConfig {
    pub embed: usize,
    pub heads: usize,
    pub depth: usize,
    pub patch: usize,
    /// Attention dropout; `None` keeps the block's default.
    pub dropout: Option<f64>,
}

impl Default for VitConfig {
    fn default() -> Self {
        Self { embed: EMBED, heads: 3, depth: 4, patch: PATCH, dropout: None }
    }
}

impl VitConfig {
    pub fn variant(variant: Variant) -> Self {
        match variant {
            Variant::Tiny => Self { depth: 2, ..Default::default() },
            Variant::Small => Self { embed: 96, heads: 6, dropout: Some(0.1), ..Default::default() },
            Variant::Base => Self { embed: 192, heads: 12, depth: 8, dropout: Some(0.1), ..Default::default() },
        }
    }

    pub fn init(&self, device: &Device) -> Vit {
        let kernel = [self.patch, self.patch];
        let patch_embed = Conv2dConfig::new([CHANNELS, self.embed], kernel).with_stride(kernel).init(device); // ok
        let cls = Initializer::Zeros.init([1, 1, self.embed], device);
        let pos = Initializer::Normal { mean: 0.0, std: 0.02 }.init([1, layers::TOKENS + 1, self.embed], device);
        let blocks = (0..self.depth)
            .map(|_| EncoderBlock::new(self.embed, self.heads, self.dropout, device))
            .collect::<Vec<_>>();

        Vit {
            patch_embed,
            cls,
            pos,
            blocks,
            norm: LayerNormConfig::new(self.embed).init(device),
            head: LinearConfig::new(self.embed, NUM_CLASSES).init(device),
        }
    }
}

#[derive(Module, Debug)]
pub struct EncoderBlock {
    ln1: LayerNorm,
    attn: MultiHeadAttention,
    ln2: LayerNorm,
    fc1: Linear,
    fc2: Linear,
}

impl EncoderBlock {
    /// Attention dropout of the reference implementation, in percent.
    const DEFAULT_DROPOUT: f64 = 10.0;

    pub fn new(embed: usize, heads: usize, dropout: Option<f64>, device: &Device) -> Self {
        let hidden = embed * layers::MLP_RATIO;
        let p = dropout.unwrap_or(Self::DEFAULT_DROPOUT);
        Self {
            ln1: LayerNormConfig::new(embed).init(device),
            attn: MultiHeadAttentionConfig::new(embed, heads).with_dropout(p).init(device), // expect: dropout-probability-range
            ln2: LayerNormConfig::new(embed).init(device),
            fc1: LinearConfig::new(embed, hidden).init(device),
            fc2: LinearConfig::new(hidden, embed).init(device),
        }
    }

    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let attended = self.attn.forward(MhaInput::self_attn(self.ln1.forward(x.clone())));
        let x = x + attended.context;
        let h = self.fc2.forward(gelu(self.fc1.forward(self.ln2.forward(x.clone()))));
        x + h
    }
}

#[derive(Module, Debug)]
pub struct Vit {
    patch_embed: Conv2d,
    cls: Param<Tensor<3>>,
    pos: Param<Tensor<3>>,
    blocks: Vec<EncoderBlock>,
    norm: LayerNorm,
    head: Linear,
}

impl Vit {
    const TOP_K: usize = NUM_CLASSES;

    pub fn forward(&self, images: Tensor<4>) -> Tensor<2> {
        let [b, _, _, _] = images.dims();
        let x = self.patch_embed.forward(images);
        let x = x.flatten::<3>(2, 3).swap_dims(1, 2);
        let [_, _, e] = x.dims();

        let cls = self.cls.val().expand([b, 1, e]); // ok
        let x = Tensor::cat(vec![cls, x], 1);
        let x = x + self.pos.val(); // ok (run-time image size)
        let x = self.blocks.iter().fold(x, |x, block| block.forward(x));
        let x = self.norm.forward(x);

        let cls = x.narrow(1, 0, 1).squeeze_dim::<2>(1); // ok
        self.head.forward(cls)
    }

    /// Every class ranked, best first.
    pub fn ranking(&self, images: Tensor<4>) -> Tensor<2, Int> {
        let logits = self.forward(images);
        logits.argtopk(Self::TOP_K, 1) // expect: argtopk-k-not-below-size (miss: the logits come from the model's own `forward` on the caller's images, which is not followed from here)
    }

    pub fn top5(&self, images: Tensor<4>) -> Tensor<2, Int> {
        let logits = self.forward(images);
        logits.argtopk(Self::TOP_K / 2, 1) // ok (5 of 10)
    }
}

/// Normalisation statistics of the training set, per channel.
static MEAN: [f32; 3] = [0.485, 0.456, 0.406];
static STD: [f32; 3] = [0.229, 0.224, 0.225];

#[derive(Debug, Clone)]
pub struct ImageItem {
    pub pixels: Vec<f32>,
    pub label: usize,
}

#[derive(Debug, Clone)]
pub struct ImageBatch {
    pub images: Tensor<4>,
    pub targets: Tensor<1, Int>,
}

#[derive(Clone, Default)]
pub struct ImageBatcher;

impl Batcher<ImageItem, ImageBatch> for ImageBatcher {
    fn batch(&self, items: Vec<ImageItem>, device: &Device) -> ImageBatch {
        let images = items
            .iter()
            .map(|item| TensorData::new(item.pixels.clone(), [1, CHANNELS, IMAGE, IMAGE]))
            .map(|data| Tensor::<4>::from_data(data, device))
            .collect::<Vec<_>>();
        let images = Tensor::cat(images, 0); // ok

        let mean = Tensor::<1>::from_floats(MEAN, device).reshape([1, 1, 1, CHANNELS]);
        let std = Tensor::<1>::from_floats(STD, device).reshape([1, CHANNELS, 1, 1]);
        let images = images - mean; // expect: binary-op-incompatible-shapes
        let images = images / std; // ok ([n, 3, 32, 32] / [1, 3, 1, 1])

        let targets = items
            .iter()
            .map(|item| Tensor::<1, Int>::from_data([item.label as i64], device))
            .collect::<Vec<_>>();
        ImageBatch { images, targets: Tensor::cat(targets, 0) }
    }
}

/// The crate's own patch grid, with a `reshape` of its own.
#[derive(Debug, Clone, Copy)]
pub struct PatchGrid {
    pub rows: usize,
    pub cols: usize,
}

impl PatchGrid {
    pub fn reshape(self, rows: usize, cols: usize) -> PatchGrid {
        PatchGrid { rows, cols }
    }
}

/// Probes run by the evaluation binary.
pub fn probe(device: &Device) {
    let images = Tensor::<4>::zeros([2, CHANNELS, IMAGE, IMAGE], device);

    // Patches by hand, for the preset and for a patch that does not tile the image.
    let patchify = |x: Tensor<4>, p: usize| -> Tensor<6> {
        let [b, c, h, w] = x.dims();
        x.reshape([b, c, h / p, p, w / p, p]) // expect: reshape-incompatible-shape
    };
    let _fits = patchify(images.clone(), PATCH);
    let _ragged = patchify(images.clone(), 14);

    // Patch embedding with the stride of the patch.
    let strided = Conv2dConfig::new([CHANNELS, EMBED], [PATCH, PATCH]).with_stride([PATCH, PATCH]).init(device);
    let tokens = strided.forward(images.clone()).flatten::<3>(2, 3).swap_dims(1, 2);
    let cls = Tensor::<3>::zeros([1, 1, EMBED], device).expand([2, 1, EMBED]); // ok
    let pos = Tensor::<3>::zeros([1, layers::TOKENS + 1, EMBED], device);
    let x = Tensor::cat(vec![cls.clone(), tokens.clone()], 1);
    let x = x + pos.clone(); // ok ([2, 65, 48] + [1, 65, 48])
    let _cls_token = x.clone().narrow(1, 0, 1); // ok
    let _distill = x.narrow(1, layers::TOKENS + 1, 1); // expect: narrow-out-of-range
    let _channels = Tensor::cat(vec![cls.clone(), tokens], 2); // expect: cat-mismatched-shapes
    let _patch_pos = pos.clone().expand([2, layers::TOKENS, EMBED]); // expect: expand-incompatible-shape

    // The same embedding without the stride: every pixel starts a patch.
    let dense = Conv2dConfig::new([CHANNELS, EMBED], [PATCH, PATCH]).init(device); // ok (valid padding, stride 1)
    let tokens = dense.forward(images).flatten::<3>(2, 3).swap_dims(1, 2);
    let x = Tensor::cat(vec![cls, tokens], 1); // ok
    let _x = x + pos; // expect: binary-op-incompatible-shapes

    // Group norms for the stem, with fewer groups as the width doubles.
    let mut groups = 32;
    let mut hybrid: Vec<GroupNorm> = Vec::new();
    for width in [64, 128, 256] {
        hybrid.push(GroupNormConfig::new(groups, width).init(device)); // ok (32 | 64, 16 | 128, 8 | 256)
        groups /= 2;
    }
    let _stem = stem::norms(device);

    let _tuned = VitConfig::variant(Variant::Small).init(device);
    let _reference = VitConfig::default().init(device);

    let grid = PatchGrid { rows: layers::GRID, cols: layers::GRID };
    let _tall = grid.reshape(14, 3); // ok (the crate's own reshape)
}

//! An inference and training pipeline across several functions: a `Batcher` that builds a batch
//! from a `Vec<Item>` whose length and sequence lengths are only known at run time, sequences
//! padded to the longest in the batch, attention masks from the lengths, `Tensor::cat` of pieces
//! sized by the data, `interpolate` to sizes read from the input's own dims, model outputs
//! reshaped with `dims()` read back, and losses on tensors whose shapes agree by construction.

use burn::data::dataloader::batcher::Batcher;
use burn::nn::interpolate::{Interpolate2dConfig, InterpolateMode};
use burn::nn::loss::{CrossEntropyLossConfig, MseLoss, Reduction};
use burn::nn::{Embedding, EmbeddingConfig, Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::module::interpolate;
use burn::tensor::ops::{InterpolateMode as Mode, InterpolateOptions};

const VOCAB: usize = 1000;
const D_MODEL: usize = 32;
const CLASSES: usize = 5;
const IMAGE: usize = 16;
const PAD: i64 = 0;

#[derive(Clone, Debug)]
pub struct Item {
    pub tokens: Vec<i64>,
    pub label: i64,
    /// `3 * IMAGE * IMAGE` values, checked when the item is read.
    pub pixels: Vec<f32>,
    pub target: f32,
}

#[derive(Clone, Debug)]
pub struct Batch {
    pub tokens: Tensor<2, Int>,
    pub lengths: Tensor<1, Int>,
    pub padding: Tensor<2, Bool>,
    pub labels: Tensor<1, Int>,
    pub images: Tensor<4>,
    pub targets: Tensor<2>,
}

#[derive(Clone, Default)]
pub struct ItemBatcher;

impl Batcher<Item, Batch> for ItemBatcher {
    fn batch(&self, items: Vec<Item>, device: &Device) -> Batch {
        let batch = items.len();
        let max_len = items.iter().map(|item| item.tokens.len()).max().unwrap_or(0).max(1);

        let mut flat = Vec::with_capacity(batch * max_len);
        for item in &items {
            flat.extend(item.tokens.iter().copied());
            flat.extend(std::iter::repeat_n(PAD, max_len - item.tokens.len()));
        }
        let tokens = Tensor::<2, Int>::from_data(TensorData::new(flat, [batch, max_len]), device); // ok (every row padded to max_len)

        let lengths: Vec<i64> = items.iter().map(|item| item.tokens.len() as i64).collect();
        let lengths = Tensor::<1, Int>::from_data(TensorData::new(lengths, [batch]), device); // ok (one length per item)

        let positions = Tensor::<1, Int>::arange(0..max_len as i64, device)
            .reshape([1, max_len])
            .expand([batch, max_len]); // ok ([1, t] to [b, t])
        let limits = lengths.clone().reshape([batch, 1]).expand([batch, max_len]); // ok ([b, 1] to [b, t])
        let padding = positions.greater_equal(limits); // ok (both [b, t])

        let labels: Vec<i64> = items.iter().map(|item| item.label).collect();
        let labels = Tensor::<1, Int>::from_data(TensorData::new(labels, [batch]), device); // ok

        let images: Vec<Tensor<3>> = items
            .iter()
            .map(|item| {
                let data = TensorData::new(item.pixels.clone(), [3, IMAGE, IMAGE]); // ok (the item's own pixel count)
                Tensor::<3>::from_data(data, device)
            })
            .collect();
        let images = Tensor::stack::<4>(images, 0); // ok (every image is [3, 16, 16])

        let targets: Vec<f32> = items.iter().map(|item| item.target).collect();
        let targets = Tensor::<2>::from_data(TensorData::new(targets, [batch, 1]), device); // ok

        Batch { tokens, lengths, padding, labels, images, targets }
    }
}

// ---------------------------------------------------------------------------------------------
// The model.
// ---------------------------------------------------------------------------------------------

#[derive(Config, Debug)]
pub struct TextImageConfig {
    #[config(default = 0.1)]
    pub smoothing: f32,
}

#[derive(Module, Debug)]
pub struct TextImage {
    embedding: Embedding,
    image_proj: Linear,
    head: Linear,
    regress: Linear,
    lm_head: Linear,
}

impl TextImageConfig {
    pub fn init(&self, device: &Device) -> TextImage {
        let pooled = 3 * (IMAGE / 2) * (IMAGE / 2);
        TextImage {
            embedding: EmbeddingConfig::new(VOCAB, D_MODEL).init(device),
            image_proj: LinearConfig::new(pooled, D_MODEL).init(device),
            head: LinearConfig::new(2 * D_MODEL, CLASSES).init(device),
            regress: LinearConfig::new(2 * D_MODEL, 1).init(device),
            lm_head: LinearConfig::new(D_MODEL, VOCAB).init(device),
        }
    }
}

impl TextImage {
    /// Mean of the token embeddings, padding excluded.
    pub fn text(&self, batch: &Batch) -> Tensor<2> {
        let [b, t] = batch.tokens.dims();
        let embedded = self.embedding.forward(batch.tokens.clone());
        let keep = batch.padding.clone().bool_not().float().reshape([b, t, 1]); // ok (b * t values)
        let summed = (embedded * keep).sum_dim(1).reshape([b, D_MODEL]); // ok ([b, 1, 32])
        let counts = batch.lengths.clone().float().clamp_min(1.0).reshape([b, 1]); // ok
        summed / counts // ok ([b, 32] / [b, 1])
    }

    pub fn image(&self, batch: &Batch) -> Tensor<2> {
        let [_, _, h, w] = batch.images.dims();
        let options = InterpolateOptions::new(Mode::Nearest);
        let small = interpolate(batch.images.clone(), [h / 2, w / 2], options); // ok (sizes from the input's dims)
        self.image_proj.forward(small.flatten::<2>(1, 3)) // ok ([b, 3 * 8 * 8])
    }

    pub fn forward(&self, batch: &Batch) -> (Tensor<2>, Tensor<2>) {
        let joint = Tensor::cat(vec![self.text(batch), self.image(batch)], 1); // ok ([b, 32] and [b, 32] along 1)
        (self.head.forward(joint.clone()), self.regress.forward(joint))
    }

    /// Next-token logits for every position.
    pub fn language(&self, batch: &Batch) -> Tensor<3> {
        let hidden = self.embedding.forward(batch.tokens.clone());
        let [b, t, d] = hidden.dims();
        let logits = self.lm_head.forward(hidden.reshape([b * t, d])); // ok (b * t * d values)
        logits.reshape([b as i32, t as i32, -1]) // ok ([b * t, 1000] back to [b, t, 1000])
    }

    pub fn attend(&self, batch: &Batch) -> Tensor<3> {
        let hidden = self.embedding.forward(batch.tokens.clone());
        let [b, t, d] = hidden.dims();
        let scores = hidden.clone().matmul(hidden.clone().swap_dims(1, 2)) / (d as f64).sqrt(); // ok ([b, t, d] x [b, d, t])
        let key_padding = batch.padding.clone().reshape([b, 1, t]).expand([b, t, t]); // ok
        let weights = softmax(scores.mask_fill(key_padding, -1.0e9), 2);
        weights.matmul(hidden) // ok ([b, t, t] x [b, t, d])
    }

    pub fn predictions(&self, batch: &Batch) -> Tensor<2> {
        let (logits, _) = self.forward(batch);
        let [_, classes] = logits.dims();
        logits.topk(3.min(classes), 1) // ok (3 of 5)
    }

    pub fn predictions_past(&self, batch: &Batch) -> Tensor<2> {
        let joint = Tensor::cat(vec![self.text(batch), self.image(batch)], 1);
        let logits = self.head.forward(joint);
        logits.topk(CLASSES + 1, 1) // expect: topk-k-out-of-range
    }

    pub fn upsampled(&self, batch: &Batch) -> Tensor<4> {
        let [_, _, h, w] = batch.images.dims();
        let up = Interpolate2dConfig::new()
            .with_output_size(Some([h * 2, w * 2]))
            .with_mode(InterpolateMode::Nearest)
            .init(); // ok (only the output size is set)
        up.forward(batch.images.clone())
    }
}

// ---------------------------------------------------------------------------------------------
// Losses and a training step.
// ---------------------------------------------------------------------------------------------

pub fn losses(model: &TextImage, config: &TextImageConfig, batch: &Batch, device: &Device) -> Tensor<1> {
    let (logits, value) = model.forward(batch);
    let ce = CrossEntropyLossConfig::new()
        .with_smoothing(Some(config.smoothing))
        .init(device) // ok (the config's 0.1)
        .forward(logits, batch.labels.clone()); // ok ([b, 5] and [b])
    let mse = MseLoss::new().forward(value, batch.targets.clone(), Reduction::Mean); // ok ([b, 1] and [b, 1])
    ce + mse
}

pub fn language_loss(model: &TextImage, batch: &Batch, device: &Device) -> Option<Tensor<1>> {
    let logits = model.language(batch);
    let [b, t, vocab] = logits.dims();
    let steps = t.checked_sub(1).filter(|&steps| steps > 0)?;
    let inputs = logits.narrow(1, 0, steps).reshape([b * steps, vocab]); // ok (steps < t)
    let targets = batch.tokens.clone().narrow(1, 1, steps).reshape([b * steps]); // ok (1 + steps == t)
    let loss = CrossEntropyLossConfig::new()
        .with_pad_tokens(Some(vec![PAD as usize]))
        .init(device)
        .forward(inputs, targets); // ok (both cover b * steps positions)
    Some(loss)
}

pub fn regression_batch_mean(model: &TextImage, batch: &Batch) -> Tensor<1> {
    let (_, value) = model.forward(batch);
    MseLoss::new().forward(value, batch.targets.clone(), Reduction::BatchMean) // expect: mse-reduction-batch-mean
}

// ---------------------------------------------------------------------------------------------
// Packing and statistics over data-sized pieces.
// ---------------------------------------------------------------------------------------------

pub fn packed(items: &[Item], device: &Device) -> (Tensor<1, Int>, Vec<Tensor<1, Int>>) {
    let pieces: Vec<Tensor<1, Int>> = items
        .iter()
        .map(|item| {
            let data = TensorData::new(item.tokens.clone(), [item.tokens.len()]); // ok
            Tensor::<1, Int>::from_data(data, device)
        })
        .collect();
    let sizes: Vec<usize> = items.iter().map(|item| item.tokens.len()).collect();
    let all = Tensor::cat(pieces, 0); // ok (1-D pieces of any lengths)
    let back = all.clone().split_with_sizes(sizes, 0); // ok (the sizes sum to the packed length)
    (all, back)
}

pub fn blocks(packed: Tensor<1, Int>, block: usize) -> Option<Tensor<2, Int>> {
    let total = packed.dims()[0];
    let full = total / block.max(1) * block.max(1);
    if full == 0 {
        return None;
    }
    Some(packed.narrow(0, 0, full).reshape([-1, block.max(1) as i32])) // ok (full is a multiple of the block)
}

pub fn summary(model: &TextImage, batch: &Batch) -> Tensor<2> {
    let text = model.text(batch);
    let [b, d] = text.dims();
    let stats = Tensor::cat(vec![text.clone().mean_dim(1), text.clone().var(1)], 1); // ok ([b, 1] twice)
    let stats = stats.pad([(0, 0), (0, d - 2)], burn::tensor::ops::PadMode::Constant(0.0)); // ok ([b, 2] padded to [b, 32])
    Tensor::cat(vec![text, stats], 0).narrow(0, 0, b) // ok ([b, 32] twice along 0)
}

pub fn summary_stacked(model: &TextImage, batch: &Batch, device: &Device) -> Tensor<2> {
    let text = model.text(batch);
    let [b, _] = text.dims();
    let stats = Tensor::<2>::zeros([b, 4], device);
    Tensor::cat(vec![text, stats], 0) // expect: cat-mismatched-shapes
}

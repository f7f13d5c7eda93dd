//! Data batching and a training step: each item becomes a tensor whose shape the code fixes,
//! the items are joined by `Tensor::cat` or `Tensor::stack`, a padded batch is filled in a loop,
//! the model's output meets its targets in a loss, and `backward` runs. How many items a batch
//! holds, and how long each sequence is, come at run time.
use burn::data::dataloader::batcher::Batcher;
use burn::nn::loss::{CrossEntropyLossConfig, MseLoss, Reduction};
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;

const N_MELS: usize = 40;
const N_FRAMES: usize = 100;
const MAX_TOKENS: usize = 64;
const N_CLASSES: usize = 10;

#[derive(Clone, Debug)]
pub struct SpectrogramItem {
    pub frames: Vec<f32>,
    pub label: usize,
}

#[derive(Clone, Debug)]
pub struct SpectrogramBatch {
    pub frames: Tensor<3>,
    pub targets: Tensor<1, Int>,
}

#[derive(Clone, Default)]
pub struct SpectrogramBatcher {}

impl Batcher<SpectrogramItem, SpectrogramBatch> for SpectrogramBatcher {
    fn batch(&self, items: Vec<SpectrogramItem>, device: &Device) -> SpectrogramBatch {
        let frames = items
            .iter()
            .map(|item| TensorData::new(item.frames.clone(), [N_MELS, N_FRAMES]))
            .map(|data| Tensor::<2>::from_data(data, device))
            .map(|tensor| tensor.reshape([1, N_MELS, N_FRAMES])) // ok
            .collect();
        let targets = items
            .iter()
            .map(|item| Tensor::<1, Int>::from_data([item.label as i64], device))
            .collect();
        SpectrogramBatch { frames: Tensor::cat(frames, 0), targets: Tensor::cat(targets, 0) }
    }
}

/// The same batcher with the frames reshaped to the wrong width in the closure.
pub fn batch_transposed(items: &[SpectrogramItem], device: &Device) -> Tensor<3> {
    let frames: Vec<Tensor<3>> = items
        .iter()
        .map(|item| Tensor::<2>::from_data(TensorData::new(item.frames.clone(), [N_MELS, N_FRAMES]), device))
        .map(|tensor| tensor.reshape([1, N_MELS, N_FRAMES + 1])) // expect: reshape-incompatible-shape
        .collect();
    Tensor::cat(frames, 0)
}

/// A clean and a noisy view of each item, stacked into pairs.
pub fn pairs(item: &SpectrogramItem, device: &Device) -> Vec<Tensor<3>> {
    let clean = Tensor::<2>::from_data(TensorData::new(item.frames.clone(), [N_MELS, N_FRAMES]), device);
    let noisy = clean.clone() + Tensor::<2>::random([N_MELS, N_FRAMES], burn::tensor::Distribution::Default, device);
    let cropped = clean.clone().narrow(1, 0, N_FRAMES / 2);
    let both = Tensor::stack::<3>(vec![clean.clone(), noisy.clone()], 0); // ok
    let uneven = Tensor::stack::<3>(vec![clean.clone(), cropped.clone()], 0); // expect: stack-mismatched-shapes
    let side_by_side = Tensor::cat(vec![clean.clone(), cropped], 1).unsqueeze::<3>(); // ok
    let mel_major = Tensor::stack::<3>(vec![clean.clone(), noisy.transpose()], 2); // expect: stack-mismatched-shapes
    vec![both, uneven, side_by_side, mel_major]
}

/// Token sequences of run-time lengths, padded into one [batch, MAX_TOKENS] tensor.
pub fn pad_tokens(sequences: Vec<Tensor<1, Int>>, device: &Device) -> Tensor<2, Int> {
    let mut batch = Tensor::<2, Int>::zeros([sequences.len(), MAX_TOKENS], device);
    for (i, tokens) in sequences.iter().enumerate() {
        let [len] = tokens.dims();
        let row: Tensor<2, Int> = tokens.clone().unsqueeze();
        batch = batch.slice_assign([i..i + 1, 0..len], row); // ok
    }
    batch
}

/// The same padding written with one range too many.
pub fn pad_tokens_3d(sequences: Vec<Tensor<1, Int>>, device: &Device) -> Tensor<2, Int> {
    let mut batch = Tensor::<2, Int>::zeros([sequences.len(), MAX_TOKENS], device);
    for (i, tokens) in sequences.iter().enumerate() {
        let [len] = tokens.dims();
        let row: Tensor<2, Int> = tokens.clone().unsqueeze();
        batch = batch.slice_assign([i..i + 1, 0..len, 0..1], row); // expect: slice-too-many-ranges
    }
    batch
}

#[derive(Module, Debug)]
pub struct Classifier {
    proj: Linear,
    head: Linear,
}

impl Classifier {
    pub fn new(device: &Device) -> Self {
        Self {
            proj: LinearConfig::new(N_MELS * N_FRAMES, 256).init(device),
            head: LinearConfig::new(256, N_CLASSES).init(device),
        }
    }

    pub fn forward(&self, frames: Tensor<3>) -> Tensor<2> {
        let x: Tensor<2> = frames.flatten(1, 2);
        self.head.forward(self.proj.forward(x))
    }
}

/// One training step: the loss from the output and the targets, then backward.
pub fn train_step(model: &Classifier, batch: SpectrogramBatch) -> Tensor<1> {
    let logits = model.forward(batch.frames);
    let loss = CrossEntropyLossConfig::new()
        .with_smoothing(Some(0.1))
        .init(&logits.device()) // ok
        .forward(logits.clone(), batch.targets.clone());
    let _grads = loss.backward();
    loss
}

/// The same step with the label smoothing written as a percentage and a zero class weight.
pub fn train_step_smoothed(model: &Classifier, batch: SpectrogramBatch) -> Tensor<1> {
    let logits = model.forward(batch.frames);
    let device = logits.device();
    let smoothed = CrossEntropyLossConfig::new().with_smoothing(Some(10.0)).init(&device); // expect: cross-entropy-smoothing-range
    let weights = vec![1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
    let weighted = CrossEntropyLossConfig::new().with_weights(Some(weights)).init(&device); // expect: cross-entropy-weights-positive
    let loss = smoothed.forward(logits.clone(), batch.targets.clone())
        + weighted.forward(logits, batch.targets);
    let _grads = loss.backward();
    loss
}

/// A regression on one-hot targets: the output and the targets meet in the loss's `sub`.
pub fn regression_step(model: &Classifier, batch: SpectrogramBatch) -> Tensor<1> {
    let logits = model.forward(batch.frames);
    let one_hot: Tensor<2> = batch.targets.clone().one_hot(N_CLASSES).float();
    let wide: Tensor<2> = batch.targets.one_hot(N_CLASSES + 2).float();
    let loss = MseLoss::new().forward(logits.clone(), one_hot, Reduction::Mean); // ok
    let wrong = MseLoss::new().forward(logits.clone(), wide, Reduction::Mean); // expect: binary-op-incompatible-shapes
    let total = loss + wrong;
    let _grads = total.backward();
    total
}

/// The loss against targets the caller passes: their width comes at run time.
pub fn regression_to(model: &Classifier, frames: Tensor<3>, targets: Tensor<2>) -> Tensor<1> {
    let logits = model.forward(frames);
    MseLoss::new().forward(logits, targets, Reduction::Mean) // ok
}

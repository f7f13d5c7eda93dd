//! Training a small tabular model with a regression head and a classification head: batches
//! assembled from host rows, Adam, MSE / Huber / cross-entropy losses, a train/validation split
//! and the metrics reported per epoch.

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataset::InMemDataset;
use burn::data::dataset::transform::{SamplerDataset, SamplerDatasetOptions};
use burn::module::AutodiffModule;
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig, HuberLoss, HuberLossConfig, MseLoss, Reduction};
use burn::nn::{Dropout, DropoutConfig, Linear, LinearConfig};
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::relu;
use burn::train::metric::{BleuScore, ClassReduction, PrecisionMetric};

use crate::hparams::{BATCH, LABEL_SMOOTHING_PCT, LR, TOP_K, TRAIN_SPLIT, VAL_SPLIT, Y_MAX, Y_MIN};

pub const FEATURES: usize = 64;
pub const OUTPUTS: usize = 3;
pub const LABELS: usize = 5;

#[derive(Clone, Debug)]
pub struct Row {
    pub features: Vec<f32>,
    pub target: Vec<f32>,
    pub label: i64,
}

#[derive(Clone, Debug)]
pub struct TabularBatch {
    pub features: Tensor<2>,
    pub targets: Tensor<2>,
    pub labels: Tensor<1, Int>,
}

#[derive(Clone, Default)]
pub struct TabularBatcher;

impl Batcher<Row, TabularBatch> for TabularBatcher {
    fn batch(&self, items: Vec<Row>, device: &Device) -> TabularBatch {
        let n = items.len();
        let features: Vec<f32> = items.iter().flat_map(|r| r.features.clone()).collect();
        let targets: Vec<f32> = items.iter().flat_map(|r| r.target.clone()).collect();
        let labels: Vec<i64> = items.iter().map(|r| r.label).collect();
        TabularBatch {
            features: Tensor::from_data(TensorData::new(features, [n, FEATURES]), device), // ok (rows come at run time)
            targets: Tensor::from_data(TensorData::new(targets, [n, OUTPUTS]), device),
            labels: Tensor::from_data(TensorData::new(labels, [n]), device),
        }
    }
}

#[derive(Config, Debug)]
pub struct TabularModelConfig {
    #[config(default = 64)]
    pub d_input: usize,
    #[config(default = 128)]
    pub d_hidden: usize,
    #[config(default = 3)]
    pub d_output: usize,
    #[config(default = 5)]
    pub n_labels: usize,
    #[config(default = 0.2)]
    pub dropout: f64,
}

#[derive(Module, Debug)]
pub struct TabularModel {
    trunk: Linear,
    regress: Linear,
    classify: Linear,
    dropout: Dropout,
}

impl TabularModelConfig {
    pub fn init(&self, device: &Device) -> TabularModel {
        TabularModel {
            trunk: LinearConfig::new(self.d_input, self.d_hidden).init(device),
            regress: LinearConfig::new(self.d_hidden, self.d_output).init(device),
            classify: LinearConfig::new(self.d_hidden, self.n_labels).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // ok
        }
    }
}

impl TabularModel {
    /// features `[batch, d_input]` -> (regression `[batch, d_output]`, logits `[batch, n_labels]`)
    pub fn forward(&self, features: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let h = self.dropout.forward(relu(self.trunk.forward(features)));
        (self.regress.forward(h.clone()), self.classify.forward(h))
    }
}

fn regression_loss(pred: Tensor<2>, target: Tensor<2>, reduction: Reduction) -> Tensor<1> {
    MseLoss::new().forward(pred, target, reduction) // expect: mse-reduction-batch-mean
}

pub struct Losses {
    pub classification: CrossEntropyLoss,
    pub robust: HuberLoss,
}

/// The losses as first configured: smoothing in percent, delta from the target range.
pub fn first_losses(device: &Device) -> Losses {
    let delta = (Y_MIN - Y_MAX) * 0.1;
    Losses {
        classification: CrossEntropyLossConfig::new().with_smoothing(Some(LABEL_SMOOTHING_PCT)).init(device), // expect: cross-entropy-smoothing-range
        robust: HuberLossConfig::new(delta).init(), // expect: huber-delta-negative
    }
}

/// The losses as fixed.
pub fn losses(device: &Device) -> Losses {
    let delta = (Y_MAX - Y_MIN) * 0.1;
    Losses {
        classification: CrossEntropyLossConfig::new().with_smoothing(Some(LABEL_SMOOTHING_PCT / 100.0)).init(device), // ok
        robust: HuberLossConfig::new(delta).init(), // ok
    }
}

pub fn fit(device: &Device, rows: Vec<Row>, epochs: usize) -> TabularModel {
    let device = device.autodiff();
    let mut model = TabularModelConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    let batcher = TabularBatcher;
    let losses = losses(&device);
    for epoch in 0..epochs {
        let mut seen = 0;
        for chunk in rows.chunks(BATCH) {
            let batch = batcher.batch(chunk.to_vec(), &device);
            let (pred, logits) = model.forward(batch.features);
            let mse = regression_loss(pred.clone(), batch.targets.clone(), Reduction::Mean);
            let huber = losses.robust.forward(pred, batch.targets, Reduction::Mean); // ok (shapes of the caller's rows)
            let ce = losses.classification.forward(logits, batch.labels);
            let loss = mse + huber + ce * 0.5;
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            model = optim.step(LR, model, grads);
            seen += chunk.len();
        }
        println!("epoch {epoch}: {seen} rows");
    }
    model.valid()
}

/// Validation reports a per-batch mean.
pub fn validate(model: &TabularModel, batch: TabularBatch) -> Tensor<1> {
    let (pred, _) = model.forward(batch.features);
    regression_loss(pred, batch.targets, Reduction::BatchMean)
}

/// A dry run on random rows before the real data is loaded.
pub fn dry_run(device: &Device) {
    let model = TabularModelConfig::new().init(device);
    let x = Tensor::<2>::random([BATCH, FEATURES], Distribution::Default, device);
    let (pred, _) = model.forward(x.clone());

    let target = Tensor::<2>::zeros([BATCH, OUTPUTS - 1], device);
    let loss = MseLoss::new().forward(pred.clone(), target, Reduction::Mean); // expect: binary-op-incompatible-shapes
    let target = Tensor::<2>::zeros([BATCH, 1], device);
    let loss = MseLoss::new().forward(pred.clone(), target.clone(), Reduction::Mean); // ok ([32, 1] broadcasts)

    let per_row = MseLoss::new().forward_no_reduction(pred, target).mean_dim(1);
    let worst = per_row.clone().max_dim(0).into_scalar::<f32>(); // ok (one element)
    let average = per_row.into_scalar::<f32>(); // expect: into-scalar-multiple-elements
    println!("{loss} {worst} {average}");

    let parts = x.clone().split_with_sizes(vec![TRAIN_SPLIT, VAL_SPLIT], 0); // expect: split-sizes-sum-mismatch
    let parts = x.split_with_sizes(vec![BATCH - VAL_SPLIT, VAL_SPLIT], 0); // ok
    println!("{} parts", parts.len());
}

/// A synthetic warm-up batch with a bias column.
pub fn warmup_batch(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let zeros = vec![0.0f32; BATCH * FEATURES];
    let features = Tensor::from_data(TensorData::new(zeros, [BATCH, FEATURES + 1]), device); // expect: tensor-data-shape-mismatch
    let targets = Tensor::from_data(TensorData::new(vec![0.0f32; BATCH * OUTPUTS], [BATCH, OUTPUTS]), device); // ok
    (features, targets)
}

/// Metrics reported at the end of each epoch.
pub fn epoch_metrics() -> (PrecisionMetric, PrecisionMetric, Vec<BleuScore>) {
    let zero_based = PrecisionMetric::multiclass(TOP_K - 1, ClassReduction::Macro); // expect: classification-metric-top-k-zero
    let precision = PrecisionMetric::multiclass(TOP_K, ClassReduction::Micro); // ok
    let mut bleu = Vec::new();
    for n in 0..=4 {
        bleu.push(BleuScore::with_max_n(n)); // expect: bleu-max-n-zero
    }
    for n in 1..=4 {
        bleu.push(BleuScore::with_max_n(n)); // ok
    }
    (zero_based, precision, bleu)
}

/// Resampling the training rows.
pub fn resampled(rows: Vec<Row>) -> (SamplerDataset<InMemDataset<Row>, Row>, SamplerDataset<InMemDataset<Row>, Row>) {
    let ratio = VAL_SPLIT as f64 / BATCH as f64 - 1.0;
    let shrunk = SamplerDataset::new(InMemDataset::new(rows.clone()), SamplerDatasetOptions::default().with_size_ratio(ratio)); // expect: sampler-dataset-size-ratio-negative
    let grown = SamplerDataset::new(InMemDataset::new(rows), SamplerDatasetOptions::default().with_size_ratio(1.5)); // ok
    (shrunk, grown)
}

/// Top-k precision chosen by the user.
pub fn precision_at(top_k: usize) -> PrecisionMetric {
    PrecisionMetric::multiclass(top_k, ClassReduction::Macro) // ok (top_k from the caller)
}

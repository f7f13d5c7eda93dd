//! The training side of the CNN: a `#[derive(Config)]` training config, losses built from
//! configs (cross entropy with smoothing and class weights, binary cross entropy, Huber, MSE),
//! `forward_classification` returning a `ClassificationOutput`, the `TrainStep` /
//! `InferenceStep` impls, optimizer, gradient clipping and scheduler configs, the metrics, and
//! the recorder that saves the model. Targets against logits are checked on fixed batches.

use burn::grad_clipping::GradientClippingConfig;
use burn::lr_scheduler::cosine::CosineAnnealingLrSchedulerConfig;
use burn::nn::loss::{
    BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig, CrossEntropyLoss,
    CrossEntropyLossConfig, HuberLoss, HuberLossConfig, MseLoss, Reduction,
};
use burn::optim::decay::WeightDecayConfig;
use burn::optim::AdamConfig;
use burn::prelude::*;
use burn::record::{CompactRecorder, Recorder};
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::train::metric::{
    AccuracyMetric, BleuScore, ClassReduction, FBetaScoreMetric, PrecisionMetric, RecallMetric,
    TopKAccuracyMetric,
};
use burn::train::{ClassificationOutput, InferenceStep, TrainOutput, TrainStep};

use crate::data::ImageBatch;
use crate::vision::{Cnn, CnnConfig};

pub mod consts {
    pub const NUM_CLASSES: usize = crate::vision::consts::NUM_CLASSES;
    pub const TOP_K: usize = 1;
    pub const MAX_NGRAM: usize = 4;
    /// The Huber delta is "one minus the margin" in the reference implementation.
    pub const HUBER_MARGIN: f32 = 1.5;
    pub const BCE_SMOOTHING_PCT: f32 = 15.0;
    pub const BATCH: usize = 4;
}

#[derive(Config, Debug)]
pub struct TrainingConfig {
    pub model: CnnConfig,
    pub optimizer: AdamConfig,
    #[config(default = 10)]
    pub num_epochs: usize,
    #[config(default = 64)]
    pub batch_size: usize,
    #[config(default = 1.0e-3)]
    pub learning_rate: f64,
    /// Label smoothing, in percent as in the experiment sheet.
    #[config(default = 10.0)]
    pub label_smoothing_percent: f32,
    #[config(default = 1.0)]
    pub grad_clip_norm: f32,
}

impl TrainingConfig {
    pub fn loss<B: Backend>(&self, device: &B::Device) -> CrossEntropyLoss<B> {
        CrossEntropyLossConfig::new()
            .with_smoothing(Some(self.label_smoothing_percent))
            .init(device) // expect: cross-entropy-smoothing-range
    }

    pub fn loss_fraction<B: Backend>(&self, device: &B::Device) -> CrossEntropyLoss<B> {
        CrossEntropyLossConfig::new()
            .with_smoothing(Some(self.label_smoothing_percent / 100.0))
            .init(device) // ok
    }

    pub fn optimizer_config(&self) -> AdamConfig {
        AdamConfig::new()
            .with_weight_decay(Some(WeightDecayConfig::new(5e-4)))
            .with_grad_clipping(Some(GradientClippingConfig::Norm(self.grad_clip_norm)))
    }
}

pub fn default_config() -> TrainingConfig {
    TrainingConfig::new(CnnConfig::new(), AdamConfig::new())
}

pub fn losses<B: Backend>(device: &B::Device) -> (CrossEntropyLoss<B>, CrossEntropyLoss<B>) {
    let config = default_config();
    (config.loss(device), config.loss_fraction(device))
}

pub fn smoothing_rescaled<B: Backend>(device: &B::Device) -> CrossEntropyLoss<B> {
    let mut config = default_config();
    config.label_smoothing_percent /= 100.0;
    CrossEntropyLossConfig::new()
        .with_smoothing(Some(config.label_smoothing_percent))
        .init(device) // ok (the field is divided in place by `/=` after its let: 0.1)
}

pub fn smoothing_from_cli<B: Backend>(device: &B::Device) -> CrossEntropyLoss<B> {
    let smoothing: f32 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(0.1);
    CrossEntropyLossConfig::new().with_smoothing(Some(smoothing)).init(device) // ok (from the command line)
}

/// Class 0 is the background: the first version ignored it with a zero weight.
pub fn weighted_loss<B: Backend>(device: &B::Device) -> CrossEntropyLoss<B> {
    CrossEntropyLossConfig::new()
        .with_weights(Some(vec![0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0]))
        .init(device) // expect: cross-entropy-weights-positive
}

pub fn downweighted_loss<B: Backend>(device: &B::Device) -> CrossEntropyLoss<B> {
    CrossEntropyLossConfig::new()
        .with_weights(Some(vec![0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0]))
        .init(device) // ok
}

pub fn attribute_losses<B: Backend>(device: &B::Device) -> (BinaryCrossEntropyLoss<B>, BinaryCrossEntropyLoss<B>) {
    let typo = BinaryCrossEntropyLossConfig::new()
        .with_smoothing(Some(consts::BCE_SMOOTHING_PCT / 10.0))
        .init(device); // expect: binary-cross-entropy-smoothing-range
    let fraction = BinaryCrossEntropyLossConfig::new()
        .with_smoothing(Some(consts::BCE_SMOOTHING_PCT / 100.0))
        .init(device); // ok
    (typo, fraction)
}

pub fn robust_losses() -> (HuberLoss, HuberLoss) {
    let margin = HuberLossConfig::new(1.0 - consts::HUBER_MARGIN).init(); // expect: huber-delta-negative
    let zero = HuberLossConfig::new(0.0).init(); // ok (a delta of 0 is accepted)
    (margin, zero)
}

// ---------------------------------------------------------------------------------------------
// The classification step.
// ---------------------------------------------------------------------------------------------

impl<B: Backend> Cnn<B> {
    pub fn forward_classification(&self, images: Tensor<B, 4>, targets: Tensor<B, 1, Int>) -> ClassificationOutput<B> {
        let output = self.forward(images);
        let loss = CrossEntropyLossConfig::new()
            .init(&output.device())
            .forward(output.clone(), targets.clone()); // ok
        ClassificationOutput::new(loss, output, targets)
    }
}

impl<B: AutodiffBackend> TrainStep for Cnn<B> {
    type Input = ImageBatch<B>;
    type Output = ClassificationOutput<B>;

    fn step(&self, batch: ImageBatch<B>) -> TrainOutput<ClassificationOutput<B>> {
        let item = self.forward_classification(batch.images, batch.targets);
        TrainOutput::new(self, item.loss.backward(), item)
    }
}

impl<B: Backend> InferenceStep for Cnn<B> {
    type Input = ImageBatch<B>;
    type Output = ClassificationOutput<B>;

    fn step(&self, batch: ImageBatch<B>) -> ClassificationOutput<B> {
        self.forward_classification(batch.images, batch.targets)
    }
}

// ---------------------------------------------------------------------------------------------
// Regression heads and the shapes of targets against logits.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
pub enum Averaging {
    PerElement,
    PerSample,
    Total,
}

impl Averaging {
    pub fn reduction(self) -> Reduction {
        match self {
            Averaging::PerElement => Reduction::Mean,
            Averaging::PerSample => Reduction::BatchMean,
            Averaging::Total => Reduction::Sum,
        }
    }
}

pub fn box_loss<B: Backend>(pred: Tensor<B, 2>, target: Tensor<B, 2>) -> Tensor<B, 1> {
    MseLoss::new().forward(pred, target, Averaging::PerSample.reduction()) // expect: mse-reduction-batch-mean
}

pub fn box_loss_mean<B: Backend>(pred: Tensor<B, 2>, target: Tensor<B, 2>) -> Tensor<B, 1> {
    MseLoss::new().forward(pred, target, Averaging::PerElement.reduction()) // ok
}

/// One-hot targets against a head that has an extra background logit.
pub fn one_hot_mse_probe<B: Backend>(device: &B::Device) -> (Tensor<B, 1>, Tensor<B, 1>, f32) {
    use consts::*;
    let logits = Tensor::<B, 2>::zeros([BATCH, NUM_CLASSES + 1], device);
    let labels = Tensor::<B, 1, Int>::from_data(TensorData::new(vec![0i64, 3, 7, 9], [BATCH]), device); // ok
    let one_hot = labels.one_hot::<2>(NUM_CLASSES).float();
    let background = Tensor::<B, 2>::zeros([BATCH, 1], device);
    let padded = Tensor::cat(vec![one_hot.clone(), background], 1); // ok
    let fitted = MseLoss::new().forward(logits.clone(), padded.clone(), Reduction::Mean); // ok
    let mismatched = MseLoss::new().forward(logits.clone(), one_hot, Reduction::Mean); // expect: binary-op-incompatible-shapes

    let per_sample = MseLoss::new().forward_no_reduction(logits, padded).mean_dim(1);
    let batch_loss: f32 = per_sample.clone().mean().into_scalar().elem(); // ok
    let first: f32 = per_sample.into_scalar().elem(); // expect: into-scalar-multiple-elements
    let _ = first;
    (fitted, mismatched, batch_loss)
}

// ---------------------------------------------------------------------------------------------
// Metrics, scheduler and recorder.
// ---------------------------------------------------------------------------------------------

pub fn classification_metrics() -> (AccuracyMetric, TopKAccuracyMetric, PrecisionMetric, PrecisionMetric) {
    let accuracy = AccuracyMetric::new();
    let top5 = TopKAccuracyMetric::new(5);
    let precision = PrecisionMetric::multiclass(consts::TOP_K, ClassReduction::Macro); // ok
    // the sweep was zero-based in the first script
    let zero_based = PrecisionMetric::multiclass(consts::TOP_K - 1, ClassReduction::Macro); // expect: classification-metric-top-k-zero
    (accuracy, top5, precision, zero_based)
}

pub fn recall_sweep() -> Vec<RecallMetric> {
    let mut metrics = Vec::new();
    for k in [0, 1, 5] {
        metrics.push(RecallMetric::multiclass(k, ClassReduction::Macro)); // expect: classification-metric-top-k-zero
    }
    metrics
}

pub fn fbeta_sweep() -> Vec<FBetaScoreMetric> {
    [1, 3, 5]
        .into_iter()
        .map(|k| FBetaScoreMetric::multiclass(0.5, k, ClassReduction::Micro)) // ok
        .collect()
}

pub fn caption_metrics() -> (BleuScore, BleuScore) {
    let bleu4 = BleuScore::with_max_n(consts::MAX_NGRAM); // ok
    let bleu0 = BleuScore::with_max_n(consts::MAX_NGRAM / 5); // expect: bleu-max-n-zero
    (bleu4, bleu0)
}

pub fn train<B: AutodiffBackend>(artifact_dir: &str, device: B::Device) {
    let config = default_config();
    config.save(format!("{artifact_dir}/config.json")).expect("config saved");
    let model: Cnn<B> = config.model.init(&device);
    let _optim = config.optimizer_config().init::<B, Cnn<B>>();
    let _scheduler = CosineAnnealingLrSchedulerConfig::new(config.learning_rate, 1000)
        .init()
        .expect("a valid schedule");
    CompactRecorder::new()
        .record(model.into_record(), format!("{artifact_dir}/model").into())
        .expect("model saved");
}

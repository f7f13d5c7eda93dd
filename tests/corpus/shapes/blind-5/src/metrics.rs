//! Evaluation helpers: burn-train's classification metrics and BLEU, a confusion matrix by
//! `one_hot` and `matmul`, top-k accuracy by hand, evaluation shards, and running means over
//! epochs.

use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::train::metric::{
    BleuScore, ClassReduction, FBetaScoreMetric, PrecisionMetric, RecallMetric,
};

use crate::hparams::eval::TOP_K;

/// The benchmarks the model is evaluated on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    Digits,
    Cifar100,
    ImageNet,
}

impl Task {
    pub const fn classes(self) -> usize {
        match self {
            Task::Digits => 10,
            Task::Cifar100 => 100,
            Task::ImageNet => 1000,
        }
    }
}

/// The leaderboard's k: the best 1 % of the classes.
fn leaderboard_k(task: Task) -> usize {
    task.classes() / 100
}

pub fn digits_precision() -> PrecisionMetric {
    PrecisionMetric::multiclass(leaderboard_k(Task::Digits), ClassReduction::Macro) // expect: classification-metric-top-k-zero
}

pub fn cifar_precision() -> PrecisionMetric {
    PrecisionMetric::multiclass(leaderboard_k(Task::Cifar100), ClassReduction::Macro) // ok (1 of 100 classes)
}

pub fn recall_from_cli() -> RecallMetric {
    let k = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    RecallMetric::multiclass(k, ClassReduction::Micro) // ok (k from the command line)
}

/// One metric per class reduction, built by `make`.
fn for_each_reduction<M, F>(make: F) -> Vec<M>
where
    F: Fn(ClassReduction) -> M,
{
    [ClassReduction::Micro, ClassReduction::Macro]
        .into_iter()
        .map(make)
        .collect()
}

pub fn f2_digits() -> Vec<FBetaScoreMetric> {
    let top_k = leaderboard_k(Task::Digits);
    for_each_reduction(|reduction| FBetaScoreMetric::multiclass(2.0, top_k, reduction)) // expect: classification-metric-top-k-zero
}

pub fn f1_imagenet() -> Vec<FBetaScoreMetric> {
    let top_k = leaderboard_k(Task::ImageNet);
    for_each_reduction(|reduction| FBetaScoreMetric::multiclass(1.0, top_k, reduction)) // ok (10 of 1000 classes)
}

/// Reference captions of the validation images.
pub static REFERENCES: [&str; 3] = ["", "a dog runs on the beach", "two cats sleep"];

/// The highest n-gram order every reference can hold, at most 4.
fn largest_order(lengths: &[usize]) -> usize {
    let shortest = lengths.iter().copied().min().unwrap_or(0);
    let mut n = 4;
    while n > shortest {
        n -= 1;
    }
    n
}

pub fn caption_bleu() -> BleuScore {
    let lengths: Vec<usize> = REFERENCES.iter().map(|r| r.split_whitespace().count()).collect();
    BleuScore::with_max_n(largest_order(&lengths)) // expect: bleu-max-n-zero (miss: a while loop lowers the order: values changed in a loop are unknown after it)
}

pub fn summary_bleu() -> BleuScore {
    BleuScore::with_max_n(largest_order(&[12, 30, 18])) // ok (every summary holds a 4-gram)
}

/// Predictions and targets of a validation batch of 64 digits.
fn digits_batch(device: &Device) -> (Tensor<1, Int>, Tensor<1, Int>) {
    let logits = Tensor::<2>::random([64, Task::Digits.classes()], Distribution::Default, device);
    let preds = logits.argmax(1).squeeze_dim::<1>(1);
    let labels: Vec<i64> = (0..64).map(|i| i % 10).collect();
    let targets = Tensor::<1, Int>::from_data(TensorData::new(labels, [64]), device); // ok (64 labels)
    (preds, targets)
}

/// Counts [classes, classes]: rows are targets, columns predictions.
fn confusion_counts(preds: Tensor<1, Int>, targets: Tensor<1, Int>, classes: usize) -> Tensor<2> {
    let predicted = preds.one_hot::<2>(classes).float();
    let actual = targets.one_hot::<2>(classes).float();
    actual.matmul(predicted) // expect: matmul-inner-dim-mismatch
}

fn confusion(preds: Tensor<1, Int>, targets: Tensor<1, Int>, classes: usize) -> Tensor<2> {
    let predicted = preds.one_hot::<2>(classes).float();
    let actual = targets.one_hot::<2>(classes).float();
    actual.transpose().matmul(predicted) // ok ([10, 64] x [64, 10])
}

pub fn digits_confusion(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let (preds, targets) = digits_batch(device);
    let classes = Task::Digits.classes();
    let matrix = confusion(preds.clone(), targets.clone(), classes);
    (matrix, confusion_counts(preds, targets, classes))
}

/// Fraction of the samples whose target is among the `K` best logits.
fn top_k_accuracy<const K: usize>(logits: Tensor<2>, targets: Tensor<1, Int>) -> f32 {
    let [n, _] = logits.dims();
    let (_, best) = logits.topk_with_indices(K, 1); // expect: topk-k-out-of-range
    let hits = best.equal(targets.reshape([n, 1]).repeat_dim(1, K)).int().sum();
    hits.into_scalar::<i64>() as f32 / n as f32
}

/// Sentiment: negative, neutral, positive.
pub fn sentiment_top5(device: &Device) -> f32 {
    let logits = Tensor::<2>::random([32, 3], Distribution::Default, device);
    let targets = Tensor::<1, Int>::random([32], Distribution::Uniform(0.0, 3.0), device);
    top_k_accuracy::<5>(logits, targets)
}

pub fn digits_top5(device: &Device) -> Tensor<2> {
    let logits = Tensor::<2>::random([32, 10], Distribution::Default, device);
    let (values, _) = logits.topk_with_indices(TOP_K, 1); // ok (5 of 10 classes)
    values
}

/// Hits [n, k]: whether the target is each of the k best classes.
fn hits_at(logits: Tensor<2>, targets: Tensor<1, Int>, k: usize) -> Tensor<2, Bool> {
    let [n, _] = logits.dims();
    let best = logits.argtopk(k, 1); // ok (3 of 10 classes)
    best.equal(targets.reshape([n, 1]).repeat_dim(1, TOP_K)) // expect: binary-op-incompatible-shapes
}

pub fn digits_hits_at_3(device: &Device) -> Tensor<2, Bool> {
    let logits = Tensor::<2>::random([32, 10], Distribution::Default, device);
    let targets = Tensor::<1, Int>::random([32], Distribution::Uniform(0.0, 10.0), device);
    hits_at(logits, targets, 3)
}

pub fn digits_hits_at_5(device: &Device) -> Tensor<2, Bool> {
    let logits = Tensor::<2>::random([32, 10], Distribution::Default, device);
    let targets = Tensor::<1, Int>::random([32], Distribution::Uniform(0.0, 10.0), device);
    let best = logits.argtopk(TOP_K, 1);
    best.equal(targets.reshape([32, 1]).repeat_dim(1, TOP_K)) // ok (5 columns on both sides)
}

/// One chunk of the evaluation batch per worker.
fn per_worker(logits: Tensor<2>, workers: usize) -> Vec<Tensor<2>> {
    let [n, _] = logits.dims();
    logits.split(n / workers, 0) // expect: split-size-zero
}

pub fn shard_eval(device: &Device) -> Vec<Tensor<2>> {
    let logits = Tensor::<2>::random([64, 10], Distribution::Default, device);
    per_worker(logits, 100)
}

pub fn shard_eval_ceil(logits: Tensor<2>, workers: usize) -> Vec<Tensor<2>> {
    let [n, _] = logits.dims();
    logits.split(n.div_ceil(workers).max(1), 0) // ok (at least one row per chunk)
}

/// One row per split: loss, top-1 and top-5 accuracy.
pub fn epoch_table(device: &Device) -> Tensor<2> {
    let train = Tensor::<1>::from_floats([0.41, 88.0, 99.1], device);
    let valid = Tensor::<1>::from_floats([0.52, 84.5], device);
    Tensor::stack(vec![train, valid], 0) // expect: stack-mismatched-shapes
}

pub fn epoch_table_full(device: &Device) -> Tensor<2> {
    let train = Tensor::<1>::from_floats([0.41, 88.0, 99.1], device);
    let valid = Tensor::<1>::from_floats([0.52, 84.5, 97.9], device);
    Tensor::stack(vec![train, valid], 0) // ok (three values each)
}

/// Loss and accuracy of each epoch so far.
fn history(device: &Device) -> Tensor<2> {
    Tensor::<2>::from_floats([[0.93, 61.0], [0.71, 70.5], [0.64, 74.0]], device)
}

/// The mean loss over the epochs.
fn mean_loss(history: Tensor<2>) -> f32 {
    history.mean_dim(0).into_scalar::<f32>() // expect: into-scalar-multiple-elements
}

pub fn report(device: &Device) -> (f32, f32) {
    let history = history(device);
    let loss = history.clone().narrow(1, 0, 1).mean().into_scalar::<f32>(); // ok (the loss column only)
    (loss, mean_loss(history))
}

/// Loss settings as the experiment tracker stores them.
#[derive(Clone, Debug)]
pub struct LossSpec {
    pub label_smoothing: f32,
    pub ignore_index: Option<usize>,
}

impl From<&LossSpec> for CrossEntropyLossConfig {
    fn from(spec: &LossSpec) -> Self {
        CrossEntropyLossConfig::new()
            .with_smoothing(Some(spec.label_smoothing))
            .with_pad_tokens(spec.ignore_index.map(|i| vec![i]))
    }
}

/// The loss of the run whose tracker page reads "label smoothing: 10".
pub fn tracked_loss(device: &Device) -> CrossEntropyLoss {
    let spec = LossSpec {
        label_smoothing: 10.0,
        ignore_index: None,
    };
    CrossEntropyLossConfig::from(&spec).init(device) // expect: cross-entropy-smoothing-range
}

pub fn default_loss(device: &Device) -> CrossEntropyLoss {
    let spec = LossSpec {
        label_smoothing: 0.1,
        ignore_index: Some(0),
    };
    CrossEntropyLossConfig::from(&spec).init(device) // ok (a fraction)
}

/// A running mean kept on the host.
#[derive(Clone, Debug, Default)]
pub struct RunningMean {
    sum: f64,
    count: usize,
}

impl RunningMean {
    pub fn update(&mut self, value: f64) {
        self.sum += value;
        self.count += 1;
    }

    pub fn into_scalar(self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum / self.count as f64 }
    }
}

pub fn epoch_mean(values: &[f64]) -> f64 {
    let mut mean = RunningMean::default();
    values.iter().for_each(|v| mean.update(*v));
    mean.into_scalar() // ok (the crate's own into_scalar)
}

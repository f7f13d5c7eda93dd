//! Training: CTC loss over padded transcripts, with a TrainStep for burn's Learner.

use burn::data::dataloader::DataLoaderBuilder;
use burn::data::dataset::InMemDataset;
use burn::nn::loss::{CTCLoss, CTCLossConfig};
use burn::optim::AdamConfig;
use burn::prelude::*;
use burn::tensor::module::ctc_loss;
use burn::train::{InferenceStep, Learner, RegressionOutput, SupervisedTraining, TrainOutput, TrainStep};

use crate::data::{BLANK, SpeechBatch, SpeechBatcher, Utterance};
use crate::model::{AcousticModel, AcousticModelConfig};

/// Whole-chapter transcripts, padded to one fixed width for the warm-up curriculum.
/// 2 * 5_000 + 1 = 10_001 alpha entries: more than the wgpu kernel's 8192.
pub const CHAPTER_WIDTH: usize = 5_000;
/// Sentence-level transcripts: 2 * 512 + 1 = 1025 entries, well within the limit.
pub const SENTENCE_WIDTH: usize = 512;
const WARMUP_BATCH: usize = 4;

#[derive(Config, Debug)]
pub struct TrainingConfig {
    pub model: AcousticModelConfig,
    #[config(default = 10)]
    pub num_epochs: usize,
    #[config(default = 16)]
    pub batch_size: usize,
    #[config(default = 1.0e-3)]
    pub learning_rate: f64,
}

impl AcousticModel {
    pub fn forward_ctc(&self, batch: SpeechBatch) -> RegressionOutput {
        let log_probs = self.forward(batch.spectrograms, batch.energy);
        let loss = CTCLossConfig::new()
            .with_blank(BLANK)
            .with_zero_infinity(true)
            .init()
            .forward(log_probs.clone(), batch.targets, batch.input_lengths, batch.target_lengths);
        let [t, n, c] = log_probs.dims();
        RegressionOutput::new(loss.clone(), log_probs.reshape([t * n, c]), loss.reshape([n, 1]))
    }
}

impl TrainStep for AcousticModel {
    type Input = SpeechBatch;
    type Output = RegressionOutput;

    fn step(&self, batch: SpeechBatch) -> TrainOutput<RegressionOutput> {
        let item = self.forward_ctc(batch);
        TrainOutput::new(self, item.loss.backward(), item)
    }
}

impl InferenceStep for AcousticModel {
    type Input = SpeechBatch;
    type Output = RegressionOutput;

    fn step(&self, batch: SpeechBatch) -> RegressionOutput {
        self.forward_ctc(batch)
    }
}

/// Curriculum warm-up on chapter-length targets: panics on wgpu before the first step.
pub fn chapter_warmup_loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let [frames, _, _] = log_probs.dims();
    let targets = Tensor::<2, Int>::ones([WARMUP_BATCH, CHAPTER_WIDTH], device);
    let input_lengths = Tensor::<1, Int>::full([WARMUP_BATCH], frames as i64, device);
    let target_lengths = Tensor::<1, Int>::full([WARMUP_BATCH], CHAPTER_WIDTH as i64, device);
    ctc_loss(log_probs, targets, input_lengths, target_lengths, BLANK)
}

/// The same warm-up on sentence-length targets: fine on every backend.
pub fn sentence_warmup_loss(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let [frames, _, _] = log_probs.dims();
    let targets = Tensor::<2, Int>::ones([WARMUP_BATCH, SENTENCE_WIDTH], device);
    let input_lengths = Tensor::<1, Int>::full([WARMUP_BATCH], frames as i64, device);
    let target_lengths = Tensor::<1, Int>::full([WARMUP_BATCH], SENTENCE_WIDTH as i64, device);
    ctc_loss(log_probs, targets, input_lengths, target_lengths, BLANK)
}

/// A fixed-width evaluation through the CTCLoss module: 8 * 600 labels, reshaped to [8, 600].
pub fn eval_loss(loss_fn: &CTCLoss, log_probs: Tensor<3>, labels: Tensor<1, Int>) -> Tensor<1> {
    let device = log_probs.device();
    let targets = labels.reshape([8, 600]);
    let input_lengths = Tensor::<1, Int>::full([8], 400, &device);
    let target_lengths = Tensor::<1, Int>::full([8], 600, &device);
    loss_fn.forward(log_probs, targets, input_lengths, target_lengths)
}

pub fn train(artifact_dir: &str, config: TrainingConfig, device: Device) {
    std::fs::create_dir_all(artifact_dir).ok();
    let autodiff_device = device.autodiff();

    let dataset = || InMemDataset::<Utterance>::new(Vec::new());
    let loader_train = DataLoaderBuilder::new(SpeechBatcher)
        .batch_size(config.batch_size)
        .build(dataset());
    let loader_valid = DataLoaderBuilder::new(SpeechBatcher)
        .batch_size(config.batch_size)
        .build(dataset());

    let training = SupervisedTraining::new(artifact_dir, loader_train, loader_valid)
        .num_epochs(config.num_epochs)
        .summary();
    let model = config.model.init(&autodiff_device);
    let result = training.launch(Learner::new(model, AdamConfig::new().init(), config.learning_rate));
    result
        .model
        .into_record()
        .save(format!("{artifact_dir}/model"))
        .expect("the trained model is saved");
}

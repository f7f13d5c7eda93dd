//! Sensor-data pipeline: raw readings batched into tensors, normalised with per-feature
//! statistics, cut into segments and feature groups, and a regression model trained on them.
use burn::data::dataloader::batcher::Batcher;
use burn::nn::loss::{MseLoss, Reduction};
use burn::nn::{Linear, LinearConfig, Relu};
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use burn::tensor::Distribution;

use crate::hparams::{BATCH_SIZE, LEARNING_RATE};

/// Time steps per sample.
pub const WINDOW: usize = 24;
/// Readings per time step: 3 accelerometer, 3 gyroscope, 6 environment.
pub const FEATURES: usize = 12;

/// Per-feature statistics measured on the training split.
const FEATURE_MEAN: [f32; FEATURES] = [0.1, -0.2, 9.8, 0.0, 0.0, 0.1, 21.5, 48.0, 1013.0, 0.4, 0.3, 0.7];
const FEATURE_STD: [f32; FEATURES] = [0.9, 1.1, 0.4, 2.3, 0.8, 1.0, 1.7, 6.0, 5.5, 1.2, 0.9, 0.5];

#[derive(Clone, Debug)]
pub struct SensorItem {
    /// `WINDOW * FEATURES` readings, row-major.
    pub readings: Vec<f32>,
    pub target: f32,
}

#[derive(Clone, Debug)]
pub struct SensorBatch {
    pub inputs: Tensor<3>,
    pub targets: Tensor<2>,
}

#[derive(Clone, Default)]
pub struct SensorBatcher;

impl Batcher<SensorItem, SensorBatch> for SensorBatcher {
    fn batch(&self, items: Vec<SensorItem>, device: &Device) -> SensorBatch {
        let inputs = items
            .iter()
            .map(|item| TensorData::new(item.readings.clone(), [1, WINDOW, FEATURES])) // ok (the readings come at run time)
            .map(|data| Tensor::<3>::from_data(data, device))
            .collect();
        let targets = items
            .iter()
            .map(|item| Tensor::<2>::from_data([[item.target]], device))
            .collect();

        SensorBatch {
            inputs: Tensor::cat(inputs, 0), // ok
            targets: Tensor::cat(targets, 0), // ok
        }
    }
}

/// A placeholder sample for the warm-up pass.
pub fn blank_item_data() -> TensorData {
    TensorData::new(vec![0.0f32; WINDOW * FEATURES], [1, WINDOW, FEATURES]) // ok
}

/// Mean and std as `[1, 1, FEATURES]`, ready to broadcast over a batch.
pub fn feature_stats(device: &Device) -> (Tensor<3>, Tensor<3>) {
    let mean = Tensor::<1>::from_floats(FEATURE_MEAN, device).reshape([1, 1, FEATURES]); // ok
    let std = TensorData::new(vec![0.9f32, 1.1, 0.4, 2.3, 0.8, 1.0, 1.7, 6.0, 5.5, 1.2, 0.9], [FEATURES]); // expect: tensor-data-shape-mismatch
    let std = Tensor::<1>::from_data(std, device).reshape([1, 1, FEATURES]); // ok
    (mean, std)
}

pub fn normalise(inputs: Tensor<3>, mean: Tensor<3>, std: Tensor<3>) -> Tensor<3> {
    (inputs - mean) / std // ok (shapes from the caller)
}

fn split_features(x: Tensor<3>, accel: usize, gyro: usize, env: usize) -> Vec<Tensor<3>> {
    x.split_with_sizes(vec![accel, gyro, env], 2) // expect: split-sizes-sum-mismatch
}

/// The normalisation and the feature groups on a random batch.
pub fn probe_batch(device: &Device) {
    let batch = Tensor::<3>::random([BATCH_SIZE, WINDOW, FEATURES], Distribution::Normal(0.0, 1.0), device);
    let mean = Tensor::<1>::from_floats(FEATURE_MEAN, device);
    let centred = batch.clone() - mean.reshape([1, 1, FEATURES]); // ok

    let scale = Tensor::<1>::from_data(TensorData::new(FEATURE_STD.to_vec(), [FEATURES]), device); // ok
    let per_step = scale.clone().reshape([1, FEATURES, 1]); // ok
    let normalised = centred.clone() / per_step; // expect: binary-op-incompatible-shapes
    let per_feature = scale.reshape([1, 1, FEATURES]); // ok
    let normalised_ok = centred / per_feature; // ok

    let groups = split_features(batch.clone(), 3, 3, 6);
    // The v2 board reports 4 accelerometer and 4 gyroscope axes.
    let groups_v2 = split_features(batch.clone(), 4, 4, 6);

    let mut segments = Vec::new();
    for (start, len) in [(0, 8), (8, 8), (16, 12)] {
        segments.push(batch.clone().narrow(1, start, len)); // expect: narrow-out-of-range
    }
    for (start, len) in [(0, 12), (12, 12)] {
        segments.push(batch.clone().narrow(1, start, len)); // ok
    }
    let window: usize = std::env::var("WINDOW").ok().and_then(|v| v.parse().ok()).unwrap_or(WINDOW);
    let head = batch.narrow(1, 0, window); // ok (window comes from the environment)

    println!(
        "{:?} {:?} {} {} {} {:?}",
        normalised.dims(),
        normalised_ok.dims(),
        groups.len(),
        groups_v2.len(),
        segments.len(),
        head.dims()
    );
}

/// A day recording paired with the night recording of the same sensor.
pub fn day_night_pairs(device: &Device) -> (Tensor<3>, Tensor<3>) {
    let day = Tensor::<2>::zeros([WINDOW, FEATURES], device);
    let night = Tensor::<2>::zeros([WINDOW / 2, FEATURES], device);
    let pair = Tensor::stack::<3>(vec![day.clone(), night.clone()], 0); // expect: stack-mismatched-shapes
    let nights = Tensor::stack::<3>(vec![night.clone(), night], 0); // ok
    (pair, nights)
}

mod csv {
    /// One parsed CSV block: its values and the (rows, columns) read from its header.
    pub struct TensorData {
        pub values: Vec<f32>,
        pub shape: [usize; 2],
    }

    impl TensorData {
        pub fn new(values: Vec<f32>, shape: [usize; 2]) -> Self {
            Self { values, shape }
        }
    }
}

/// A header read before its rows: the crate's own `TensorData` keeps whatever it is given.
pub fn csv_header() -> usize {
    let block = csv::TensorData::new(vec![0.0, 1.0, 2.0], [2, 2]); // ok
    block.values.len() + block.shape[0]
}

#[derive(Config, Debug)]
pub struct RegressorConfig {
    #[config(default = 64)]
    pub hidden: usize,
}

#[derive(Module, Debug)]
pub struct Regressor {
    hidden: Linear,
    out: Linear,
    act: Relu,
}

impl RegressorConfig {
    pub fn init(&self, device: &Device) -> Regressor {
        Regressor {
            hidden: LinearConfig::new(WINDOW * FEATURES, self.hidden).init(device),
            out: LinearConfig::new(self.hidden, 1).init(device),
            act: Relu::new(),
        }
    }
}

impl Regressor {
    pub fn forward(&self, inputs: Tensor<3>) -> Tensor<2> {
        let [batch, window, features] = inputs.dims();
        let x = inputs.reshape([batch, window * features]); // ok
        self.out.forward(self.act.forward(self.hidden.forward(x)))
    }
}

pub fn train(device: Device, items: Vec<SensorItem>, epochs: usize) -> Regressor {
    let device = device.autodiff();
    let mut model = RegressorConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    let (mean, std) = feature_stats(&device);
    let batcher = SensorBatcher;
    let mse = MseLoss::new();

    for epoch in 0..epochs {
        for chunk in items.chunks(BATCH_SIZE) {
            let batch = batcher.batch(chunk.to_vec(), &device);
            let inputs = normalise(batch.inputs, mean.clone(), std.clone());
            let preds = model.forward(inputs);
            let loss = mse.forward(preds, batch.targets, Reduction::Mean); // ok
            println!("epoch {epoch}: {:.4}", loss.clone().into_scalar::<f32>()); // ok
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            model = optim.step(LEARNING_RATE, model, grads);
        }
    }
    model
}

/// Validation loss averaged per sample, as in the paper's table.
pub fn validation_loss(model: &Regressor, batch: SensorBatch) -> Tensor<1> {
    let preds = model.forward(batch.inputs);
    MseLoss::new().forward(preds, batch.targets, Reduction::BatchMean) // expect: mse-reduction-batch-mean
}

/// Summed validation loss of a batch.
pub fn validation_sum(model: &Regressor, batch: SensorBatch) -> Tensor<1> {
    let preds = model.forward(batch.inputs);
    MseLoss::new().forward(preds, batch.targets, Reduction::Sum) // ok
}

/// Row predictions against column targets: broadcasts to `[n, n]`, no panic (a silent bug).
pub fn transposed_targets(device: &Device) -> Tensor<1> {
    let preds = Tensor::<2>::zeros([BATCH_SIZE, 1], device);
    let targets = Tensor::<2>::zeros([1, BATCH_SIZE], device);
    MseLoss::new().forward(preds, targets, Reduction::Mean) // ok
}

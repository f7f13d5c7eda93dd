//! A multivariate forecaster: lookback windows cut by `narrow` (and by burn-dataset's windows),
//! a Conv1d + MaxPool1d encoder flattened into a Linear head, a seasonal-naive baseline by
//! `repeat_dim`, instance normalisation undone on the forecast, a two-scale smoother with
//! AvgPool1d, and the history and forecast put together for plots.

use burn::data::dataset::transform::WindowsDataset;
use burn::data::dataset::{Dataset, InMemDataset};
use burn::nn::conv::{Conv1d, Conv1dConfig};
use burn::nn::pool::{AvgPool1dConfig, MaxPool1d, MaxPool1dConfig};
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::relu;

use crate::hparams::{FILTERS, HORIZON, LOOKBACK, N_VARS, SEASON};

/// Length of the stored history the probes cut windows from.
const HISTORY: usize = 100;

#[derive(Debug, Clone)]
pub struct ForecastConfig {
    pub filters: usize,
    pub kernel: usize,
    pub pool: usize,
    pub horizon: usize,
}

impl Default for ForecastConfig {
    fn default() -> Self {
        Self { filters: FILTERS, kernel: 5, pool: 2, horizon: HORIZON }
    }
}

impl ForecastConfig {
    /// Time steps left after the valid convolution and the pool.
    pub fn pooled_len(&self) -> usize {
        (LOOKBACK - self.kernel + 1) / self.pool
    }

    pub fn init(&self, device: &Device) -> ConvForecaster {
        ConvForecaster {
            conv: Conv1dConfig::new(N_VARS, self.filters, self.kernel).init(device), // ok
            pool: MaxPool1dConfig::new(self.pool).init(),
            head: LinearConfig::new(self.filters * self.pooled_len(), self.horizon * N_VARS).init(device),
        }
    }
}

#[derive(Module, Debug)]
pub struct ConvForecaster {
    conv: Conv1d,
    pool: MaxPool1d,
    head: Linear,
}

impl ConvForecaster {
    /// `[b, lookback, vars]` -> `[b, horizon, vars]`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let [b, _, vars] = x.dims();
        let h = self.pool.forward(relu(self.conv.forward(x.swap_dims(1, 2))));
        let h = h.flatten::<2>(1, 2);
        self.head.forward(h).reshape([b as i32, -1, vars as i32])
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Resolution {
    Hourly,
    Daily,
    Weekly,
}

/// Samples in one lookback window at each resolution (the history is hourly).
fn steps_per_window(resolution: Resolution) -> usize {
    match resolution {
        Resolution::Hourly => LOOKBACK,
        Resolution::Daily => LOOKBACK / SEASON,
        Resolution::Weekly => LOOKBACK / SEASON / 7,
    }
}

pub fn window_datasets(rows: Vec<[f32; N_VARS]>) -> usize {
    type Rows = InMemDataset<[f32; N_VARS]>;
    let hourly: WindowsDataset<Rows, [f32; N_VARS]> = WindowsDataset::new(InMemDataset::new(rows.clone()), steps_per_window(Resolution::Hourly)); // ok
    let weekly: WindowsDataset<Rows, [f32; N_VARS]> = WindowsDataset::new(InMemDataset::new(rows), steps_per_window(Resolution::Weekly)); // expect: windows-size-zero
    hourly.len() + weekly.len()
}

/// The crate's own series on the host, with a `narrow` of its own.
pub struct Series {
    values: Vec<[f32; N_VARS]>,
}

impl Series {
    pub fn narrow(&self, start: usize, len: usize) -> Series {
        let end = (start + len).min(self.values.len());
        Series { values: self.values[start.min(end)..end].to_vec() }
    }
}

/// Probes run by the evaluation binary.
pub fn probe(device: &Device) {
    let cfg = ForecastConfig::default();
    let series = Tensor::<2>::zeros([HISTORY, N_VARS], device);

    // Training windows cut from the history.
    let mut windows = Vec::new();
    for start in [0, 26, 52] {
        windows.push(series.clone().narrow(0, start, LOOKBACK)); // ok (52 + 48 = 100)
    }
    for start in [0, 24, 48, 72] {
        windows.push(series.clone().narrow(0, start, LOOKBACK)); // expect: narrow-out-of-range
    }
    let mut start = 0;
    while start + LOOKBACK <= HISTORY {
        windows.push(series.clone().narrow(0, start, LOOKBACK)); // ok (bounded by the loop)
        start += SEASON;
    }
    let _unfolded: Tensor<3> = series.unfold(0, LOOKBACK, SEASON); // ok
    let batch: Tensor<3> = Tensor::stack(windows, 0);
    let _ = batch;

    // The encoder, step by step, on a batch of 8 windows.
    let x = Tensor::<3>::zeros([8, LOOKBACK, N_VARS], device);
    let conv = Conv1dConfig::new(N_VARS, FILTERS, cfg.kernel).init(device);
    let pool = MaxPool1dConfig::new(cfg.pool).init();
    let h = pool.forward(relu(conv.forward(x.clone().swap_dims(1, 2))));
    let _flat = h.clone().reshape([8, FILTERS * cfg.pooled_len()]); // ok (16 * 22)
    let _unpooled = h.reshape([8, FILTERS * (LOOKBACK / 2)]); // expect: reshape-incompatible-shape

    // One filter bank per variable.
    let _depthwise = Conv1dConfig::new(N_VARS, N_VARS * 4, 3).with_groups(N_VARS).init(device); // ok
    let _per_var = Conv1dConfig::new(N_VARS, FILTERS, 3).with_groups(N_VARS).init(device); // expect: conv-groups-divide-channels

    // Seasonal-naive baseline against the target.
    let target = Tensor::<3>::zeros([8, HORIZON, N_VARS], device);
    let last_season = x.clone().narrow(1, LOOKBACK - SEASON, SEASON);
    let naive = last_season.clone().repeat_dim(1, HORIZON.div_ceil(SEASON)).narrow(1, 0, HORIZON); // ok
    let _err = naive.clone() - target.clone();
    let short = last_season.repeat_dim(1, HORIZON / SEASON);
    let _short_err = short - target.clone(); // expect: binary-op-incompatible-shapes

    // Instance normalisation, undone on the forecast.
    let model = ForecastConfig { kernel: 7, ..Default::default() }.init(device);
    let mean = x.clone().mean_dim(1);
    let scale = x.clone().var(1).sqrt().add_scalar(1.0e-5);
    let forecast = model.forward((x.clone() - mean.clone()) / scale.clone());
    let _restored = forecast.clone() * scale + mean; // ok ([8, 36, 3] * [8, 1, 3] + [8, 1, 3])
    let per_step = x.clone().mean_dim(2);
    let _misaligned = target.clone() + per_step; // expect: binary-op-incompatible-shapes

    // Two-scale smoother over the encoder features.
    let fine = conv.forward(x.clone().swap_dims(1, 2)); // [8, 16, 44]
    let fine = fine.narrow(2, 0, 40);
    let coarse = AvgPool1dConfig::new(4).init().forward(fine.clone()).repeat_dim(2, 4); // 10 steps, 40 again
    let _two_scale = fine.clone() + coarse; // ok ([8, 16, 40] + [8, 16, 40])
    let coarser = AvgPool1dConfig::new(6).init().forward(fine.clone()).repeat_dim(2, 6); // (40 - 6) / 6 + 1 = 6, 36 steps
    let _three_scale = fine + coarser; // expect: binary-op-incompatible-shapes

    // History and forecast for the plots.
    let history = x.clone().narrow(0, 0, 1);
    let ahead = target.narrow(0, 0, 1);
    let _timeline = Tensor::cat(vec![history.clone(), ahead.clone()], 1); // ok ([1, 84, 3])
    let _panels: Tensor<4> = Tensor::stack(vec![history, ahead], 0); // expect: stack-mismatched-shapes

    // The first variable only.
    let _first = x.clone().slice([0..8, 0..LOOKBACK, 0..1]); // ok
    let _first_bad = x.slice([0..8, 0..LOOKBACK, 0..N_VARS, 0..1]); // expect: slice-too-many-ranges

    // Chunks of the forecast for the report.
    let chunks = |t: Tensor<3>, parts: usize| t.split(HORIZON / parts, 1); // expect: split-size-zero
    let _thirds = chunks(forecast.clone(), 3);
    let _hourly = chunks(forecast.clone(), LOOKBACK);

    // Horizon asked for at run time.
    let asked: usize = std::fs::read_to_string("horizon.txt")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(HORIZON);
    let _asked = naive.narrow(1, 0, asked); // ok (length read from a file)

    let host = Series { values: vec![[0.0; N_VARS]; HISTORY] };
    let _tail = host.narrow(72, LOOKBACK); // ok (the crate's own narrow)
}

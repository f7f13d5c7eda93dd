//! Evaluation and data helpers: burn-train's classification metrics, BLEU, and the vision
//! metrics' configs (PSNR, SSIM, MS-SSIM), then burn-dataset windows and samplers and the
//! `TensorData` a batcher builds. Values come from consts, helper functions, iterators, loops
//! over literal arrays and the crate's own settings.

use burn::data::dataset::transform::{SamplerDataset, SamplerDatasetOptions, Windows, WindowsDataset};
use burn::data::dataset::{Dataset, InMemDataset};
use burn::prelude::*;
use burn::train::metric::vision::{MsSsimMetricConfig, PsnrMetricConfig, SsimMetricConfig};
use burn::train::metric::{
    BleuScore, ClassReduction, FBetaScoreMetric, PrecisionMetric, RecallMetric, TopKAccuracyMetric,
};

use crate::hparams::eval::{BLEU_ORDER, HISTORY, IMAGE_SIZE, MAX_PIXEL, N_CLASSES};

// ---------------------------------------------------------------------------------------------
// Classification metrics.
// ---------------------------------------------------------------------------------------------

/// The leaderboard's k: the best 5 % of the classes.
const fn leaderboard_k(classes: usize) -> usize {
    classes * 5 / 100
}

pub fn leaderboard_precision() -> PrecisionMetric {
    PrecisionMetric::multiclass(leaderboard_k(N_CLASSES), ClassReduction::Macro) // expect: classification-metric-top-k-zero
}

pub fn imagenet_precision() -> PrecisionMetric {
    PrecisionMetric::multiclass(leaderboard_k(1000), ClassReduction::Macro) // ok (50 of 1000)
}

/// One recall per k reported in the paper's table ("top-0" is the abstain rate).
pub fn recall_table() -> Vec<RecallMetric> {
    let mut metrics = Vec::new();
    for k in [0, 1, 5] {
        metrics.push(RecallMetric::multiclass(k, ClassReduction::Micro)); // expect: classification-metric-top-k-zero
    }
    metrics
}

pub fn recall_table_fixed() -> Vec<RecallMetric> {
    [1, 3, 5].iter().map(|&k| RecallMetric::multiclass(k, ClassReduction::Micro)).collect() // ok
}

pub fn f_beta_smallest_k() -> FBetaScoreMetric {
    let ks = [3usize, 0, 5];
    let k = ks.iter().copied().min().unwrap_or(1);
    FBetaScoreMetric::multiclass(2.0, k, ClassReduction::Macro) // expect: classification-metric-top-k-zero
}

pub fn f_beta_from_cli() -> FBetaScoreMetric {
    let k: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    FBetaScoreMetric::multiclass(1.0, k, ClassReduction::Macro) // ok (k from the command line)
}

pub fn top_k_accuracy() -> TopKAccuracyMetric {
    // the constructor does not check k
    TopKAccuracyMetric::new(leaderboard_k(N_CLASSES)) // ok
}

// ---------------------------------------------------------------------------------------------
// BLEU.
// ---------------------------------------------------------------------------------------------

/// The n-gram order the short answers can hold: 4 minus the shortest's shortfall.
fn answer_order(shortest: usize) -> usize {
    BLEU_ORDER.saturating_sub(BLEU_ORDER - shortest.min(BLEU_ORDER))
}

pub fn answer_bleu() -> BleuScore {
    BleuScore::with_max_n(BLEU_ORDER - 4) // expect: bleu-max-n-zero
}

pub fn caption_bleu() -> BleuScore {
    BleuScore::with_max_n(answer_order(2)) // ok (order 2)
}

pub fn default_bleu() -> BleuScore {
    BleuScore::new() // ok (BLEU-4)
}

// ---------------------------------------------------------------------------------------------
// Vision metrics.
// ---------------------------------------------------------------------------------------------

/// How the images of a benchmark are stored.
#[derive(Clone, Copy, Debug)]
pub enum PixelFormat {
    U8,
    Unit,
    Centered,
}

impl PixelFormat {
    pub fn range(self) -> (f64, f64) {
        match self {
            PixelFormat::U8 => (0.0, MAX_PIXEL),
            PixelFormat::Unit => (0.0, 1.0),
            PixelFormat::Centered => (-1.0, 1.0),
        }
    }
}

pub fn psnr_for(format: PixelFormat) -> PsnrMetricConfig {
    let (low, high) = format.range();
    PsnrMetricConfig::new(high - low) // ok (every format has a positive range)
}

pub fn psnr_shifted() -> PsnrMetricConfig {
    // the targets were shifted by 255 before the metric
    PsnrMetricConfig::new(MAX_PIXEL - 255.0) // expect: psnr-max-pixel-value-not-positive
}

pub fn psnr_exact() -> PsnrMetricConfig {
    PsnrMetricConfig::new(1.0).with_epsilon(0.0) // expect: derived-psnr-metric-config-with-epsilon-positive
}

pub fn ssim_windows() -> Vec<SsimMetricConfig> {
    // a window a quarter of the image, then the standard 11
    let quarter = IMAGE_SIZE / 4;
    vec![
        SsimMetricConfig::new(1.0).with_kernel_size(11), // ok
        SsimMetricConfig::new(1.0).with_kernel_size(quarter), // expect: derived-ms-ssim-metric-config-with-kernel-size-positive-odd-number
    ]
}

pub fn ssim_sharp() -> SsimMetricConfig {
    SsimMetricConfig::new(1.0).with_sigma(0.0) // expect: derived-ssim-metric-config-with-sigma-positive
}

pub fn ssim_structure_only() -> SsimMetricConfig {
    // drop the luminance term
    SsimMetricConfig::new(1.0).with_k1_k2(0.0, 0.03) // expect: derived-ms-ssim-metric-config-with-k1-k2-positive
}

pub fn ms_ssim_range(min: f32, max: f32) -> MsSsimMetricConfig {
    MsSsimMetricConfig::new(min - max) // expect: derived-ms-ssim-metric-config-new-pixel-range-positive
}

pub fn ms_ssim_unit() -> MsSsimMetricConfig {
    ms_ssim_range(0.0, 1.0)
}

pub fn ms_ssim_grey() -> MsSsimMetricConfig {
    let channels = [1usize, 3].iter().copied().filter(|c| *c > 3).count();
    MsSsimMetricConfig::new(1.0).with_channels(channels) // expect: derived-ms-ssim-metric-config-with-channels-positive-number
}

/// Scale weights of the five MS-SSIM levels (Wang et al.).
const SCALE_WEIGHTS: [f32; 5] = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];

pub fn ms_ssim_coarse() -> MsSsimMetricConfig {
    // keep the weights of the coarse levels only
    let betas: Vec<f32> = SCALE_WEIGHTS.iter().copied().filter(|b| *b > 0.5).collect();
    MsSsimMetricConfig::new(1.0).with_betas(betas) // expect: derived-ms-ssim-metric-config-with-betas-vector-empty
}

pub fn ms_ssim_three_levels() -> MsSsimMetricConfig {
    MsSsimMetricConfig::new(1.0).with_betas(vec![0.0, 0.5, 0.5]) // ok (0 is allowed)
}

pub fn ms_ssim_differences() -> MsSsimMetricConfig {
    let betas: Vec<f32> = SCALE_WEIGHTS.windows(2).map(|w| w[1] - w[0]).collect();
    MsSsimMetricConfig::new(1.0).with_betas(betas) // expect: derived-ms-ssim-metric-config-with-betas-all-beta-values
}

// ---------------------------------------------------------------------------------------------
// Datasets: windows and samplers.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct Reading {
    pub value: f32,
}

fn readings(n: usize) -> InMemDataset<Reading> {
    InMemDataset::new((0..n).map(|i| Reading { value: i as f32 }).collect())
}

pub fn weekly_windows() -> WindowsDataset<InMemDataset<Reading>, Reading> {
    WindowsDataset::new(readings(100), 7) // ok
}

pub fn history_windows() -> WindowsDataset<InMemDataset<Reading>, Reading> {
    // the history minus the 8 steps to forecast
    WindowsDataset::new(readings(100), HISTORY - 8) // expect: windows-size-zero
}

pub fn long_windows() -> WindowsDataset<InMemDataset<Reading>, Reading> {
    WindowsDataset::new(readings(10), 500) // ok (no window, no panic)
}

pub fn count_windows(size: usize) -> usize {
    let data = readings(50);
    data.windows(size).count() // expect: windows-size-zero
}

pub fn daily_count() -> usize {
    count_windows(HISTORY / 16)
}

pub fn oversampled() -> SamplerDataset<InMemDataset<Reading>, Reading> {
    SamplerDataset::new(readings(100), SamplerDatasetOptions::default().with_size_ratio(1.5)) // ok
}

pub fn undersampled() -> SamplerDataset<InMemDataset<Reading>, Reading> {
    let keep = 0.75;
    SamplerDataset::new(readings(100), SamplerDatasetOptions::default().with_size_ratio(keep - 1.0)) // expect: sampler-dataset-size-ratio-negative
}

pub fn resampled() -> SamplerDataset<InMemDataset<Reading>, Reading> {
    let mut options = SamplerDatasetOptions::default().with_size_ratio(-1.0); // ok (the options are reassigned by with_source_size() below, so the ratio never reaches SizeConfig::resolve)
    // -1 meant "all of it" in the old trainer
    options = options.with_source_size();
    SamplerDataset::new(readings(100), options) // ok (the ratio is replaced by the source size)
}

// ---------------------------------------------------------------------------------------------
// TensorData from a batcher.
// ---------------------------------------------------------------------------------------------

pub fn history_data(dataset: &InMemDataset<Reading>) -> TensorData {
    let values: Vec<f32> = (0..HISTORY).filter_map(|i| dataset.get(i)).map(|r| r.value).collect();
    TensorData::new(values, [1, HISTORY]) // ok (the dataset's length comes at run time)
}

pub fn image_data() -> TensorData {
    let pixels: Vec<f32> = (0..3 * IMAGE_SIZE * IMAGE_SIZE).map(|i| (i % 256) as f32 / 255.0).collect();
    TensorData::new(pixels, [3, IMAGE_SIZE, IMAGE_SIZE]) // ok
}

pub fn grey_as_rgb() -> TensorData {
    let pixels = vec![0.5f32; IMAGE_SIZE * IMAGE_SIZE];
    TensorData::new(pixels, [3, IMAGE_SIZE, IMAGE_SIZE]) // expect: tensor-data-shape-mismatch
}

pub fn one_hot_rows() -> TensorData {
    let mut rows = Vec::new();
    for class in [0usize, 3, 7] {
        let mut row = vec![0.0f32; N_CLASSES];
        row[class] = 1.0;
        rows.extend(row);
    }
    TensorData::new(rows, [3, N_CLASSES]) // ok (three rows of 10)
}

pub fn labels_data() -> TensorData {
    TensorData::new(vec![0i64, 3, 7, 1], [2, 3]) // expect: tensor-data-shape-mismatch
}

/// The crate's own BLEU, named like burn-train's.
pub mod text {
    pub struct BleuScore {
        pub max_n: usize,
    }

    impl BleuScore {
        pub fn with_max_n(max_n: usize) -> Self {
            Self { max_n: max_n.max(1) }
        }
    }
}

pub fn own_bleu() -> text::BleuScore {
    text::BleuScore::with_max_n(0) // ok (the crate's own BleuScore)
}

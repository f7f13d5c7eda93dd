//! The data pipeline: an image `Batcher` that builds each item's tensor from its pixels with
//! `TensorData::new`, stacks the items and normalises them with per-channel mean / std tensors,
//! one-hot targets, sequence batches, crops, and the dataset transforms (`SamplerDataset`,
//! `WindowsDataset`, `PartialDataset`) the training script uses.

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataset::transform::{
    PartialDataset, SamplerDataset, SamplerDatasetOptions, WindowsDataset,
};
use burn::data::dataset::InMemDataset;
use burn::prelude::*;
use burn::tensor::backend::Backend;

pub mod consts {
    pub const CHANNELS: usize = 3;
    pub const HEIGHT: usize = 32;
    pub const WIDTH: usize = 32;
    pub const NUM_CLASSES: usize = 10;
    pub const MEAN: [f32; 3] = [0.4914, 0.4822, 0.4465];
    pub const STD: [f32; 3] = [0.2470, 0.2435, 0.2616];
    pub const SEQ_LEN: usize = 16;
    /// Windows of a 32nd of the sequence, as in the paper's ablation.
    pub const WINDOW_DIVISOR: usize = 32;
    /// Oversampling of the training split.
    pub const DROP_RATIO: f64 = 1.25;
    /// Every (HEIGHT / 64)-th pixel for the 64-pixel thumbnails.
    pub const THUMB_STEP: isize = (HEIGHT / 64) as isize;
}

use consts::*;

#[derive(Clone, Debug)]
pub struct ImageItem {
    pub pixels: Vec<f32>,
    pub label: usize,
}

#[derive(Clone, Debug)]
pub struct ImageBatch<B: Backend> {
    pub images: Tensor<B, 4>,
    pub targets: Tensor<B, 1, Int>,
}

#[derive(Clone, Debug)]
pub struct ImageBatcher<B: Backend> {
    mean: Tensor<B, 4>,
    std: Tensor<B, 4>,
}

impl<B: Backend> ImageBatcher<B> {
    pub fn new(device: &B::Device) -> Self {
        Self {
            mean: Tensor::<B, 1>::from_floats(MEAN, device).reshape([1, CHANNELS, 1, 1]), // ok
            std: Tensor::<B, 1>::from_floats(STD, device).reshape([1, CHANNELS, 1, 1]), // ok
        }
    }

    /// The statistics laid out for channels-last images (the export pipeline).
    pub fn channels_last(device: &B::Device) -> Self {
        Self {
            mean: Tensor::<B, 1>::from_floats(MEAN, device).reshape([1, 1, 1, CHANNELS]), // ok
            std: Tensor::<B, 1>::from_floats(STD, device).reshape([1, 1, 1, CHANNELS]), // ok
        }
    }
}

impl<B: Backend> Batcher<B, ImageItem, ImageBatch<B>> for ImageBatcher<B> {
    fn batch(&self, items: Vec<ImageItem>, device: &B::Device) -> ImageBatch<B> {
        let images = items
            .iter()
            .map(|item| TensorData::new(item.pixels.clone(), [CHANNELS, HEIGHT, WIDTH])) // ok (pixels from the dataset item)
            .map(|data| Tensor::<B, 3>::from_data(data.convert::<B::FloatElem>(), device))
            .collect::<Vec<_>>();
        let images = Tensor::stack::<4>(images, 0); // ok
        let images = (images - self.mean.clone()) / self.std.clone(); // ok (the two constructors lay the mean out differently)

        let labels = items.iter().map(|item| item.label as i64).collect::<Vec<_>>();
        let targets = Tensor::<B, 1, Int>::from_data(TensorData::new(labels, [items.len()]), device); // ok

        ImageBatch { images, targets }
    }
}

pub fn one_hot_targets<B: Backend>(targets: Tensor<B, 1, Int>) -> Tensor<B, 2> {
    targets.one_hot::<2>(NUM_CLASSES).float()
}

/// Channels-last statistics against channels-first images.
pub fn normalise_probe<B: Backend>(device: &B::Device) -> (Tensor<B, 4>, Tensor<B, 4>) {
    let images = Tensor::<B, 4>::ones([4, CHANNELS, HEIGHT, WIDTH], device);
    let mean_nchw = Tensor::<B, 1>::from_floats(MEAN, device).reshape([1, CHANNELS, 1, 1]);
    let mean_nhwc = Tensor::<B, 1>::from_floats(MEAN, device).reshape([1, 1, 1, CHANNELS]);
    let good = images.clone() - mean_nchw; // ok
    let bad = images - mean_nhwc; // expect: binary-op-incompatible-shapes
    (good, bad)
}

/// The placeholder item used to warm the model up before the first batch.
pub fn warmup_item() -> TensorData {
    // MNIST-sized placeholder left from the first prototype
    TensorData::new(vec![0.0f32; 28 * 28], [CHANNELS, HEIGHT, WIDTH]) // expect: tensor-data-shape-mismatch
}

pub fn warmup_item_fixed() -> TensorData {
    TensorData::new(vec![0.0f32; CHANNELS * HEIGHT * WIDTH], [CHANNELS, HEIGHT, WIDTH]) // ok
}

/// RGB and grayscale images of the same dataset joined into one batch.
pub fn mixed_batch<B: Backend>(device: &B::Device) -> (Tensor<B, 4>, Tensor<B, 4>) {
    let rgb = Tensor::<B, 4>::zeros([4, CHANNELS, HEIGHT, WIDTH], device);
    let gray = Tensor::<B, 4>::zeros([4, 1, HEIGHT, WIDTH], device);
    let widened = Tensor::cat(vec![rgb.clone(), gray.clone().repeat_dim(1, CHANNELS)], 0); // ok
    let mixed = Tensor::cat(vec![rgb, gray], 0); // expect: cat-mismatched-shapes
    (widened, mixed)
}

/// A batch of token sequences, one of them shorter than the others.
pub fn stack_sequences<B: Backend>(device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 2>) {
    let full = Tensor::<B, 1>::zeros([SEQ_LEN], device);
    let short = Tensor::<B, 1>::zeros([SEQ_LEN - 4], device);
    let padded = Tensor::cat(vec![short.clone(), Tensor::<B, 1>::zeros([4], device)], 0); // ok
    let batch = Tensor::stack::<2>(vec![full.clone(), padded], 0); // ok
    let ragged = Tensor::stack::<2>(vec![full, short], 0); // expect: stack-mismatched-shapes
    (batch, ragged)
}

/// Train / validation / test parts of a feature table.
pub fn split_features<B: Backend>(device: &B::Device) -> (Vec<Tensor<B, 2>>, Vec<Tensor<B, 2>>) {
    let all = Tensor::<B, 2>::zeros([100, 8], device);
    let train_val = all.clone().split_with_sizes(vec![80, 20], 0); // ok
    let three_way = all.split_with_sizes(vec![80, 10], 0); // expect: split-sizes-sum-mismatch
    (train_val, three_way)
}

pub fn crops<B: Backend>(device: &B::Device) -> Vec<Tensor<B, 4>> {
    let images = Tensor::<B, 4>::zeros([4, CHANNELS, HEIGHT, WIDTH], device);
    let center = images.clone().slice([0..4, 0..CHANNELS, 4..28, 4..28]); // ok
    // the video pipeline's crop, frame range included
    let video_crop = images.clone().slice(s![.., .., 0..1, 4..28, 4..28]); // expect: slice-too-many-ranges
    let halves = images.clone().slice(s![.., .., ..;2, ..;2]); // ok
    let thumbs = images.slice(s![.., .., ..;THUMB_STEP, ..;THUMB_STEP]); // expect: slice-step-zero
    vec![center, video_crop, halves, thumbs]
}

pub fn channel_stats<B: Backend>(device: &B::Device) -> (f32, f32) {
    let probe = Tensor::<B, 2>::from_data(TensorData::new(vec![0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6], [2, 3]), device); // ok
    let overall: f32 = probe.clone().mean().into_scalar().elem(); // ok
    let per_channel: f32 = probe.mean_dim(0).into_scalar().elem(); // expect: into-scalar-multiple-elements
    (overall, per_channel)
}

// ---------------------------------------------------------------------------------------------
// Dataset transforms.
// ---------------------------------------------------------------------------------------------

pub fn series_windows(values: Vec<f32>) -> WindowsDataset<InMemDataset<f32>, f32> {
    WindowsDataset::new(InMemDataset::new(values), SEQ_LEN / WINDOW_DIVISOR) // expect: windows-size-zero
}

pub fn series_windows_full(values: Vec<f32>) -> WindowsDataset<InMemDataset<f32>, f32> {
    WindowsDataset::new(InMemDataset::new(values), SEQ_LEN) // ok
}

pub fn series_windows_env(values: Vec<f32>) -> WindowsDataset<InMemDataset<f32>, f32> {
    let size = std::env::var("WINDOW").ok().and_then(|s| s.parse().ok()).unwrap_or(SEQ_LEN);
    WindowsDataset::new(InMemDataset::new(values), size) // ok (size read at run time)
}

pub fn undersampled(items: Vec<ImageItem>) -> SamplerDataset<InMemDataset<ImageItem>, ImageItem> {
    SamplerDataset::new(InMemDataset::new(items), SamplerDatasetOptions::default().with_size_ratio(1.0 - DROP_RATIO)) // expect: sampler-dataset-size-ratio-negative
}

pub fn oversampled(items: Vec<ImageItem>) -> SamplerDataset<InMemDataset<ImageItem>, ImageItem> {
    SamplerDataset::new(InMemDataset::new(items), SamplerDatasetOptions::default().with_size_ratio(DROP_RATIO)) // ok (a ratio above 1 oversamples)
}

pub fn validation_part(items: Vec<ImageItem>) -> PartialDataset<InMemDataset<ImageItem>, ImageItem> {
    let n = items.len();
    PartialDataset::new(InMemDataset::new(items), n * 8 / 10, n)
}

/// The crate's own sampler options, named like burn's.
pub mod sampling {
    #[derive(Default, Debug, Clone)]
    pub struct SamplerDatasetOptions {
        pub ratio: f64,
    }

    impl SamplerDatasetOptions {
        pub fn with_size_ratio(mut self, ratio: f64) -> Self {
            self.ratio = ratio.max(0.0);
            self
        }
    }

    pub fn clamped() -> SamplerDatasetOptions {
        SamplerDatasetOptions::default().with_size_ratio(1.0 - super::DROP_RATIO) // ok (the crate's own options)
    }
}

//! Data augmentation and batching for 32x32 images: crops by `slice`/`narrow`, flips, `pad`,
//! normalization with broadcasting, mixup, contrastive views, and burn-dataset transforms
//! (windows of video frames, samplers, a shuffled split).

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataset::transform::{
    PartialDataset, SamplerDataset, SamplerDatasetOptions, ShuffledDataset, Windows,
    WindowsDataset,
};
use burn::data::dataset::{Dataset, InMemDataset};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::ops::PadMode;

use crate::hparams::vision::{IMAGE_SIZE, MEAN, STD};

/// The augmentation policy.
pub mod policy {
    pub const CROP: usize = 28;
    pub const PAD: usize = 4;
    /// Rare classes are drawn this many times per epoch.
    pub const OVERSAMPLE: f64 = 1.5;
    pub const THUMBNAIL: usize = 64;
    pub static FLIP_AXES: [usize; 1] = [2];

    /// Clips for the video model.
    pub mod video {
        pub const FPS: usize = 2;
        pub const CLIP_SECONDS: usize = 1;
        pub const FRAME_STRIDE: usize = 4;
        /// Frames in a clip once every `FRAME_STRIDE`-th frame is kept.
        pub const CLIP_LEN: usize = FPS * CLIP_SECONDS / FRAME_STRIDE;
    }
}

/// One image, channels first, with its label.
#[derive(Clone, Debug)]
pub struct ImageItem {
    pub pixels: Vec<f32>,
    pub label: usize,
}

#[derive(Clone, Debug)]
pub struct ImageBatch {
    pub images: Tensor<4>,
    pub targets: Tensor<1, Int>,
}

/// Batches images; training batches get a padded random crop and a random flip.
#[derive(Clone, Debug)]
pub struct AugmentBatcher {
    pub train: bool,
    pub seed: u64,
}

impl AugmentBatcher {
    fn offsets(&self, index: usize) -> (usize, usize, bool) {
        let r = self.seed.wrapping_mul(6364136223846793005).wrapping_add(index as u64);
        ((r % 9) as usize, ((r >> 8) % 9) as usize, (r >> 16) % 2 == 0)
    }
}

/// Reflect-pads by `PAD` and crops back to the image size at (top, left).
fn pad_and_crop(image: Tensor<3>, top: usize, left: usize) -> Tensor<3> {
    let pad = policy::PAD;
    let padded = image.pad([(0, 0), (pad, pad), (pad, pad)], PadMode::Reflect);
    padded.slice([0..3, top..top + IMAGE_SIZE, left..left + IMAGE_SIZE]) // ok (a range per axis)
}

impl Batcher<ImageItem, ImageBatch> for AugmentBatcher {
    fn batch(&self, items: Vec<ImageItem>, device: &Device) -> ImageBatch {
        let images = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let data = TensorData::new(item.pixels.clone(), [3, IMAGE_SIZE, IMAGE_SIZE]); // ok (the length comes with the item)
                let image = Tensor::<3>::from_data(data, device);
                if !self.train {
                    return image;
                }
                let (top, left, flip) = self.offsets(i);
                let image = pad_and_crop(image, top, left);
                if flip { image.flip(policy::FLIP_AXES) } else { image } // ok (one axis)
            })
            .collect::<Vec<_>>();
        let images = Tensor::stack::<4>(images, 0);
        let mean = Tensor::<1>::from_floats(MEAN, device).reshape([1, 3, 1, 1]);
        let std = Tensor::<1>::from_floats(STD, device).reshape([1, 3, 1, 1]);
        let images = (images - mean) / std; // ok (statistics on the channel axis)
        let labels = items.iter().map(|item| item.label as i64).collect::<Vec<_>>();
        let targets = Tensor::<1, Int>::from_data(TensorData::new(labels, [items.len()]), device);
        ImageBatch { images, targets }
    }
}

fn random_image(device: &Device) -> Tensor<3> {
    Tensor::<3>::random([3, IMAGE_SIZE, IMAGE_SIZE], Distribution::Default, device)
}

/// A training crop of one image.
fn random_crop(image: Tensor<3>, top: usize, left: usize) -> Tensor<3> {
    image.slice([0..1, 0..3, top..top + policy::CROP, left..left + policy::CROP]) // expect: slice-too-many-ranges
}

pub fn crop_demo(device: &Device) -> Tensor<3> {
    random_crop(random_image(device), 2, 3)
}

/// Evaluation presets.
#[derive(Clone, Copy, Debug)]
pub enum Preset {
    Cifar,
    ImageNet,
}

impl Preset {
    pub fn crop(self) -> usize {
        match self {
            Preset::Cifar => policy::CROP,
            Preset::ImageNet => 224,
        }
    }
}

fn center_crop(image: Tensor<3>, size: usize) -> Tensor<3> {
    let [_, height, width] = image.dims();
    let (top, left) = (height.saturating_sub(size) / 2, width.saturating_sub(size) / 2);
    image.narrow(1, top, size).narrow(2, left, size) // expect: narrow-out-of-range
}

/// The evaluation view with the ImageNet preset.
pub fn eval_view(device: &Device) -> Tensor<3> {
    center_crop(random_image(device), Preset::ImageNet.crop())
}

pub fn eval_view_cifar(device: &Device) -> Tensor<3> {
    let image = random_image(device);
    let size = Preset::Cifar.crop();
    let offset = (IMAGE_SIZE - size) / 2;
    image.narrow(1, offset, size).narrow(2, offset, size) // ok (28 of 32 from 2)
}

/// Per-channel statistics.
pub mod stats {
    use burn::prelude::*;

    /// Shaped for channel-last images.
    pub fn channel_last(values: [f32; 3], device: &Device) -> Tensor<4> {
        Tensor::<1>::from_floats(values, device).reshape([1, 1, 1, 3])
    }
}

fn normalize(images: Tensor<4>, device: &Device) -> Tensor<4> {
    (images - stats::channel_last(MEAN, device)) / stats::channel_last(STD, device) // expect: binary-op-incompatible-shapes (miss: `normalize` writes none of the words a number dim comes from (constructors, data, reshaping): the operator check evaluates no operand there, callers' frames or not)
}

pub fn normalized_batch(device: &Device) -> Tensor<4> {
    let images = Tensor::<4>::random([8, 3, IMAGE_SIZE, IMAGE_SIZE], Distribution::Default, device);
    normalize(images, device)
}

/// Two augmented views of one image for contrastive training.
pub fn two_views(device: &Device) -> Tensor<4> {
    let image = random_image(device);
    let cropped = image.clone().narrow(1, 2, policy::CROP).narrow(2, 2, policy::CROP);
    let flipped = image.flip([2]);
    Tensor::stack(vec![cropped, flipped], 0) // expect: stack-mismatched-shapes
}

pub fn two_crops(device: &Device) -> Tensor<4> {
    let image = random_image(device);
    let first = image.clone().narrow(1, 0, policy::CROP).narrow(2, 0, policy::CROP);
    let second = image.narrow(1, 4, policy::CROP).narrow(2, 4, policy::CROP).flip([2]);
    Tensor::stack(vec![first, second], 0) // ok (both 28x28)
}

/// Mixup: each image blended with its partner by a per-sample weight.
fn mix(images: Tensor<4>, partners: Tensor<4>, lam: Tensor<1>) -> Tensor<4> {
    let [b, c, h, w] = images.dims();
    let lam = lam.unsqueeze::<4>().expand([b, c, h, w]); // expect: expand-incompatible-shape
    images * lam.clone() + partners * lam.neg().add_scalar(1.0)
}

pub fn mixup(device: &Device) -> Tensor<4> {
    let images = Tensor::<4>::random([8, 3, IMAGE_SIZE, IMAGE_SIZE], Distribution::Default, device);
    let partners = images.clone().flip([0]);
    let lam = Tensor::<1>::random([8], Distribution::Uniform(0.0, 1.0), device);
    mix(images, partners, lam)
}

pub fn mixup_broadcast(device: &Device) -> Tensor<4> {
    let images = Tensor::<4>::random([8, 3, IMAGE_SIZE, IMAGE_SIZE], Distribution::Default, device);
    let partners = images.clone().flip([0]);
    let lam = Tensor::<1>::random([8], Distribution::Uniform(0.0, 1.0), device).reshape([8, 1, 1, 1]);
    images * lam.clone() + partners * lam.neg().add_scalar(1.0) // ok (one weight per image)
}

/// Every few pixels, for the thumbnail strip.
pub fn thumbnail(device: &Device) -> Tensor<3> {
    let image = random_image(device);
    let step = IMAGE_SIZE / policy::THUMBNAIL;
    image.slice(s![.., ..;step, ..;step]) // expect: slice-step-zero
}

pub fn half_size(device: &Device) -> Tensor<3> {
    let image = random_image(device);
    image.slice(s![.., ..;2, ..;2]) // ok (every other pixel)
}

/// A grey checkerboard, the placeholder for an image that failed to load.
fn checkerboard(size: usize) -> Vec<f32> {
    (0..size * size).map(|i| ((i / size + i % size) % 2) as f32).collect()
}

pub fn placeholder(device: &Device) -> Tensor<3> {
    let data = TensorData::new(checkerboard(IMAGE_SIZE), [3, IMAGE_SIZE, IMAGE_SIZE]); // expect: tensor-data-shape-mismatch
    Tensor::from_data(data, device)
}

pub fn placeholder_grey(device: &Device) -> Tensor<3> {
    let data = TensorData::new(checkerboard(IMAGE_SIZE), [1, IMAGE_SIZE, IMAGE_SIZE]); // ok (one channel of 32x32)
    Tensor::<3>::from_data(data, device).repeat_dim(0, 3)
}

fn read_item(path: &str) -> std::io::Result<ImageItem> {
    let bytes = std::fs::read(path)?;
    let pixels = bytes.iter().map(|b| *b as f32 / 255.0).collect();
    Ok(ImageItem { pixels, label: 0 })
}

pub fn load_image(path: &str, device: &Device) -> std::io::Result<Tensor<3>> {
    let item = read_item(path)?;
    if item.pixels.len() != 3 * IMAGE_SIZE * IMAGE_SIZE {
        return Err(std::io::Error::other("not a 32x32 RGB image"));
    }
    let data = TensorData::new(item.pixels, [3, IMAGE_SIZE, IMAGE_SIZE]); // ok (checked above)
    Ok(Tensor::from_data(data, device))
}

/// Splits a batch into the student's part and the part held out for the teacher.
pub fn teacher_split(device: &Device) -> Vec<Tensor<4>> {
    let batch = Tensor::<4>::random([8, 3, IMAGE_SIZE, IMAGE_SIZE], Distribution::Default, device);
    let (student, teacher) = (6, 3);
    batch.split_with_sizes(vec![student, teacher], 0) // expect: split-sizes-sum-mismatch
}

pub fn teacher_split_rest(device: &Device) -> Vec<Tensor<4>> {
    let batch = Tensor::<4>::random([8, 3, IMAGE_SIZE, IMAGE_SIZE], Distribution::Default, device);
    let [b, _, _, _] = batch.dims();
    batch.split_with_sizes(vec![b - 2, 2], 0) // ok (6 + 2 = 8)
}

/// Frames of a video, one item each.
pub fn frame_dataset(n: usize) -> InMemDataset<ImageItem> {
    let items = (0..n)
        .map(|i| ImageItem {
            pixels: vec![i as f32; 3 * IMAGE_SIZE * IMAGE_SIZE],
            label: i % 10,
        })
        .collect();
    InMemDataset::new(items)
}

/// Clips of consecutive frames; the length defaults to the policy's.
#[derive(Clone, Debug, Default)]
pub struct ClipSpec {
    pub len: Option<usize>,
}

impl ClipSpec {
    fn clips(&self, frames: InMemDataset<ImageItem>) -> WindowsDataset<InMemDataset<ImageItem>, ImageItem> {
        WindowsDataset::new(frames, self.len.unwrap_or(policy::video::CLIP_LEN)) // expect: windows-size-zero
    }
}

pub fn video_clips() -> usize {
    ClipSpec::default().clips(frame_dataset(64)).len()
}

pub fn frame_pairs() -> usize {
    frame_dataset(16).windows(policy::video::FPS).count() // ok (windows of 2 frames)
}

/// Rare images drawn more often than once per epoch.
pub fn oversampled() -> SamplerDataset<InMemDataset<ImageItem>, ImageItem> {
    SamplerDataset::new(frame_dataset(100), SamplerDatasetOptions::default().with_size_ratio(policy::OVERSAMPLE)) // ok (150 draws of 100)
}

/// The common images drawn less often.
pub fn undersampled() -> SamplerDataset<InMemDataset<ImageItem>, ImageItem> {
    SamplerDataset::new(frame_dataset(100), SamplerDatasetOptions::default().with_size_ratio(1.0 - policy::OVERSAMPLE)) // expect: sampler-dataset-size-ratio-negative
}

type Shuffled = ShuffledDataset<InMemDataset<ImageItem>, ImageItem>;

/// The first 80 % of a shuffled dataset.
pub fn train_split(items: Vec<ImageItem>, seed: u64) -> PartialDataset<Shuffled, ImageItem> {
    let n = items.len();
    let shuffled = ShuffledDataset::new(InMemDataset::new(items), seed);
    PartialDataset::new(shuffled, 0, n * 8 / 10)
}

/// A strip of frame ids kept on the host, named like burn's narrow.
pub struct Filmstrip {
    frames: Vec<usize>,
}

impl Filmstrip {
    pub fn narrow(&self, _dim: usize, start: usize, length: usize) -> &[usize] {
        let end = (start + length).min(self.frames.len());
        &self.frames[start.min(end)..end]
    }
}

pub fn filmstrip_tail() -> usize {
    let strip = Filmstrip {
        frames: (0..10).collect(),
    };
    strip.narrow(0, 8, 36).len() // ok (the crate's own narrow clamps)
}

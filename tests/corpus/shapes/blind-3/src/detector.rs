//! A YOLO-style detector: a strided Conv2d backbone on 416x416 images, 1x1 prediction heads on
//! the 13x13 and 26x26 grids, anchor decoding by `narrow`, score ranking and flips for
//! test-time augmentation.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{LeakyRelu, LeakyReluConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::{sigmoid, softmax};

use crate::hparams::{GRID, IMAGE_SIZE, NUM_ANCHORS, NUM_CLASSES};

/// Anchor (width, height) pairs in pixels, for the 13x13 grid.
const ANCHORS: [[f32; 2]; 3] = [[116.0, 90.0], [156.0, 198.0], [373.0, 326.0]];

#[derive(Config, Debug)]
pub struct DetectorConfig {
    #[config(default = 16)]
    pub width: usize,
    #[config(default = 3)]
    pub anchors: usize,
    #[config(default = 20)]
    pub classes: usize,
}

#[derive(Module, Debug)]
pub struct Detector {
    conv1: Conv2d,
    conv2: Conv2d,
    conv3: Conv2d,
    pool: MaxPool2d,
    conv4: Conv2d,
    head: Conv2d,
    head_fine: Conv2d,
    act: LeakyRelu,
}

impl DetectorConfig {
    pub fn init(&self, device: &Device) -> Detector {
        let down = |c_in: usize, c_out: usize| {
            Conv2dConfig::new([c_in, c_out], [3, 3])
                .with_stride([2, 2])
                .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                .init(device)
        };
        let w = self.width;
        let outputs = self.anchors * (5 + self.classes);
        Detector {
            conv1: down(3, w),
            conv2: down(w, 2 * w),
            conv3: down(2 * w, 4 * w),
            pool: MaxPool2dConfig::new([2, 2]).init(),
            conv4: down(4 * w, 8 * w),
            head: Conv2dConfig::new([8 * w, outputs], [1, 1]).init(device),
            head_fine: Conv2dConfig::new([4 * w, outputs], [1, 1]).init(device),
            act: LeakyReluConfig::new().with_negative_slope(0.1).init(),
        }
    }
}

impl Detector {
    /// The most boxes kept per image.
    const MAX_DETECTIONS: usize = 600;

    /// images `[batch, 3, 416, 416]` -> (coarse `[batch, A*(5+C), 13, 13]`, fine `[.., 26, 26]`)
    pub fn forward(&self, images: Tensor<4>) -> (Tensor<4>, Tensor<4>) {
        let x = self.act.forward(self.conv1.forward(images));
        let x = self.act.forward(self.conv2.forward(x));
        let x = self.act.forward(self.conv3.forward(x));
        let fine = self.pool.forward(x);
        let coarse = self.act.forward(self.conv4.forward(fine.clone()));
        (self.head.forward(coarse), self.head_fine.forward(fine))
    }

    /// The best objectness scores of every image.
    fn keep_best(&self, scores: Tensor<2>) -> Tensor<2> {
        scores.topk(Self::MAX_DETECTIONS, 1) // expect: topk-k-out-of-range
    }
}

/// One field of every prediction `[batch, anchors, 5 + classes, cells]`.
fn field(preds: Tensor<4>, start: usize, len: usize) -> Tensor<4> {
    preds.narrow(2, start, len) // expect: narrow-out-of-range
}

/// Decoding of one batch of two images, as in `examples/detect.rs`.
pub fn decode_walkthrough(device: &Device) {
    let model = DetectorConfig::new().init(device);
    let images = Tensor::<4>::zeros([2, 3, IMAGE_SIZE, IMAGE_SIZE], device);
    let (raw, raw_fine) = model.forward(images.clone());

    let preds = raw.clone().reshape([2, NUM_ANCHORS, 4 + NUM_CLASSES, GRID, GRID]); // expect: reshape-incompatible-shape
    let preds = raw.clone().reshape([2, NUM_ANCHORS, 5 + NUM_CLASSES, GRID * GRID]); // ok
    let nhwc = raw.clone().permute([0, 2, -1, 3]); // expect: permute-duplicate-axes
    let nhwc = raw.clone().permute([0, 2, 3, 1]); // ok
    println!("{:?} {:?}", preds.dims(), nhwc.dims());

    let boxes = field(preds.clone(), 0, 4);
    let objectness = field(preds.clone(), 4, 1);
    let with_background = field(preds.clone(), 5, NUM_CLASSES + 1);
    let classes = preds.clone().narrow(2, 5, NUM_CLASSES); // ok (the 20 class logits)

    let scores = sigmoid(objectness).reshape([2, -1]);
    let best = model.keep_best(scores.clone());
    let best = scores.topk(100, 1); // ok (100 of 507 cells)

    let class_probs = softmax(classes, 2);
    let ranking = class_probs.clone().argtopk(NUM_CLASSES, 2); // expect: argtopk-k-not-below-size
    let ranking = class_probs.argtopk(5, 2); // ok

    let anchors = Tensor::<2>::from_data(ANCHORS, device);
    let per_cell = anchors.clone().unsqueeze::<3>().expand([2, GRID * GRID, 2]); // expect: expand-incompatible-shape
    let per_cell = anchors.reshape([1, NUM_ANCHORS, 2, 1]).expand([2, NUM_ANCHORS, 2, GRID * GRID]); // ok

    let xy = sigmoid(boxes.clone().narrow(2, 0, 2)); // ok
    let wh = boxes.narrow(2, 2, 2).exp() * per_cell; // ok (both [2, 3, 2, 169])
    let cx = xy.narrow(2, 0, 1).squeeze_dim::<3>(2); // ok
    let w = wh.clone().squeeze_dim::<3>(2); // expect: squeeze-dim-not-one
    println!("{with_background} {best} {ranking} {cx} {w}");

    let coarse = raw.reshape([2, 75, -1]);
    let fine = raw_fine.reshape([2, 75, -1]);
    let all = Tensor::cat(vec![coarse.clone(), fine.clone()], 1); // expect: cat-mismatched-shapes
    let all = Tensor::cat(vec![coarse, fine], 2); // ok (169 + 676 cells)
    println!("{:?}", all.dims());

    let crop = images.clone().slice(s![.., .., 0..208, 0..208, ..]); // expect: slice-too-many-ranges
    let crop = images.slice(s![.., .., 0..208, 0..208]); // ok
    println!("{:?}", crop.dims());
}

/// Test-time augmentation: the prediction on the image and on its mirror.
pub fn flipped_views(images: Tensor<4>) -> (Tensor<4>, Tensor<4>) {
    let hflip = |x: Tensor<4>| x.flip([3, -1]); // expect: flip-duplicate-axes
    let vflip = |x: Tensor<4>| x.flip([2]); // ok
    (hflip(images.clone()), vflip(images))
}

/// The caller picks how many detections to keep.
pub fn top_scores(scores: Tensor<2>) -> Tensor<2> {
    let k: usize = std::env::var("MAX_DETECTIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    scores.topk(k, 1) // ok (k and the scores come at run time)
}

/// A host-side anchor table, broadcast to the grid by hand.
pub struct AnchorGrid {
    sizes: Vec<[f32; 2]>,
}

impl AnchorGrid {
    pub fn expand(&self, shape: [usize; 3]) -> Vec<[f32; 2]> {
        let [batch, cells, _] = shape;
        self.sizes.iter().cycle().take(batch * cells).copied().collect()
    }
}

pub fn anchor_table() -> Vec<[f32; 2]> {
    let grid = AnchorGrid { sizes: ANCHORS.to_vec() };
    grid.expand([2, GRID * GRID, 2]) // ok (the crate's own AnchorGrid::expand)
}

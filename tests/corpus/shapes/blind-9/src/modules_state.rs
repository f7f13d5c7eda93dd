//! Module state: `#[derive(Module)]` structs whose fields are built differently by several
//! constructors (`new`, `small`, `with_*`, `from_config`), `Option<Conv2d>` fields, `Vec<Linear>`
//! layers indexed and iterated, heads swapped at run time in `&mut self` methods, a stem built
//! from a config and then replaced, `Ignored<T>` and `Param` fields, and a model loaded from a
//! file (its values then unknown).

use burn::module::{Ignored, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{
    Dropout, DropoutConfig, GroupNorm, GroupNormConfig, Linear, LinearConfig, PaddingConfig2d,
};
use burn::prelude::*;
use burn::store::RecordError;
use burn::tensor::Distribution;

const IN_CHANNELS: usize = 3;
const HIDDEN: usize = 48;
const CLASSES: usize = 10;

#[derive(Config, Debug)]
pub struct BackboneConfig {
    #[config(default = 48)]
    pub hidden: usize,
    #[config(default = 6)]
    pub groups: usize,
    #[config(default = 10)]
    pub classes: usize,
    #[config(default = 0.1)]
    pub dropout: f64,
}

#[derive(Module, Debug)]
pub struct Backbone {
    stem: Conv2d,
    depthwise: Option<Conv2d>,
    norm: GroupNorm,
    layers: Vec<Linear>,
    head: Linear,
    dropout: Dropout,
    top_k: Ignored<usize>,
    temperature: Ignored<f32>,
    prototypes: Param<Tensor<2>>,
    hidden: usize,
}

impl Backbone {
    /// The paper's model: 48 channels, 10 classes.
    pub fn new(device: &Device) -> Self {
        let stem = Conv2dConfig::new([IN_CHANNELS, HIDDEN], [3, 3])
            .with_padding(PaddingConfig2d::Same)
            .init(device); // ok (odd kernel, groups 1)
        let norm = GroupNormConfig::new(6, HIDDEN).init(device); // ok (6 divides 48)
        let layers = vec![
            LinearConfig::new(HIDDEN, 32).init(device), // ok
            LinearConfig::new(32, 16).init(device),     // ok
        ];
        let head = LinearConfig::new(16, CLASSES).init(device);
        let dropout = DropoutConfig::new(0.1).init(); // ok
        let prototypes = Param::from_tensor(Tensor::<2>::eye(CLASSES, device));
        Self {
            stem,
            depthwise: None,
            norm,
            layers,
            head,
            dropout,
            top_k: Ignored(5),
            temperature: Ignored(1.0),
            prototypes,
            hidden: HIDDEN,
        }
    }

    /// The edge model: 20 channels, 4 classes.
    pub fn small(device: &Device) -> Self {
        let hidden = 20;
        let stem = Conv2dConfig::new([IN_CHANNELS, hidden], [5, 5])
            .with_padding(PaddingConfig2d::Same)
            .init(device); // ok (5 is odd)
        let norm = GroupNormConfig::new(4, hidden).init(device); // ok (4 divides 20; 6 is the other constructor's)
        let layers = vec![LinearConfig::new(hidden, 16).init(device)];
        let head = LinearConfig::new(16, 4).init(device);
        let dropout = DropoutConfig::new(0.0).init(); // ok
        let prototypes = Param::from_tensor(Tensor::<2>::eye(4, device));
        Self {
            stem,
            depthwise: None,
            norm,
            layers,
            head,
            dropout,
            top_k: Ignored(4),
            temperature: Ignored(0.5),
            prototypes,
            hidden,
        }
    }

    pub fn from_config(config: &BackboneConfig, device: &Device) -> Self {
        let stem = Conv2dConfig::new([IN_CHANNELS, config.hidden], [3, 3])
            .with_padding(PaddingConfig2d::Same)
            .init(device); // ok
        let norm = GroupNormConfig::new(config.groups, config.hidden).init(device); // ok (the caller's config)
        let layers = (0..2)
            .map(|_| LinearConfig::new(config.hidden, config.hidden).init(device))
            .collect();
        let head = LinearConfig::new(config.hidden, config.classes).init(device);
        let dropout = DropoutConfig::new(config.dropout).init(); // ok (the caller's rate)
        let prototypes = Param::from_tensor(Tensor::<2>::eye(config.classes, device));
        Self {
            stem,
            depthwise: None,
            norm,
            layers,
            head,
            dropout,
            top_k: Ignored(config.classes.min(5)),
            temperature: Ignored(1.0),
            prototypes,
            hidden: config.hidden,
        }
    }

    /// Adds a depthwise conv of whatever width the constructor chose.
    pub fn with_depthwise(mut self, device: &Device) -> Self {
        let conv = Conv2dConfig::new([self.hidden, self.hidden], [3, 3])
            .with_groups(self.hidden)
            .with_padding(PaddingConfig2d::Same)
            .init(device); // ok (groups == channels for 48 and for 20)
        self.depthwise = Some(conv);
        self
    }

    pub fn with_grouped(mut self, device: &Device) -> Self {
        let conv = Conv2dConfig::new([HIDDEN, HIDDEN], [3, 3]).with_groups(5).init(device); // expect: conv-groups-divide-channels
        self.depthwise = Some(conv);
        self
    }

    pub fn regularized(mut self) -> Self {
        self.dropout = DropoutConfig::new(30.0).init(); // expect: dropout-probability-range
        self
    }

    pub fn features(&self, images: Tensor<4>) -> Tensor<2> {
        let x = self.stem.forward(images);
        let x = match &self.depthwise {
            Some(conv) => conv.forward(x),
            None => x,
        };
        let x = self.norm.forward(x);
        let [batch, channels, _, _] = x.dims();
        let x = x.mean_dim(3).mean_dim(2).reshape([batch, channels]); // ok ([b, c, 1, 1] has b * c values)
        let x = x.narrow(1, 0, self.hidden); // ok (hidden is the stem's width in every constructor)
        self.layers.iter().fold(x, |x, layer| layer.forward(x))
    }

    pub fn forward(&self, images: Tensor<4>) -> Tensor<2> {
        let x = self.dropout.forward(self.features(images));
        let logits = self.head.forward(x) / self.temperature.0;
        logits.matmul(self.prototypes.val()) // ok ([b, classes] x [classes, classes] in every constructor)
    }

    pub fn top(&self, images: Tensor<4>) -> Tensor<2> {
        self.forward(images).topk(self.top_k.0, 1) // ok (5 of 10, 4 of 4, min(classes, 5) of classes)
    }

    pub fn first_layer(&self, pooled: Tensor<2>) -> Tensor<2> {
        let h = self.layers[0].forward(pooled);
        let [_, width] = h.dims();
        h.narrow(1, width / 2, width - width / 2) // ok (the upper half of whatever width layer 0 has)
    }

    /// Replaces the head and the prototypes for a new label set.
    pub fn retarget(&mut self, classes: usize, device: &Device) {
        let d_in = self.head.weight.dims()[0];
        self.head = LinearConfig::new(d_in, classes).init(device);
        self.prototypes = Param::from_tensor(Tensor::<2>::eye(classes, device));
        self.top_k = Ignored(classes.min(self.top_k.0));
    }

    pub fn binary(&mut self, images: Tensor<4>, device: &Device) -> Vec<Tensor<2>> {
        self.retarget(2, device);
        let logits = self.forward(images);
        logits.split_with_sizes(vec![1, 1], 1) // ok (the head has 2 classes since retarget)
    }

    pub fn ternary(&mut self, features: Tensor<2>, device: &Device) -> Tensor<2> {
        self.head = LinearConfig::new(16, 3).init(device);
        self.head.forward(features).topk(3, 1) // ok (the head was swapped for a 3-class one)
    }

    pub fn ternary_wide(&mut self, features: Tensor<2>, device: &Device) -> Tensor<2> {
        self.head = LinearConfig::new(16, 3).init(device);
        self.head.forward(features).narrow(1, 0, 4) // expect: narrow-out-of-range (miss: the width of a Linear field assigned two lines above in the same method, 3 classes)
    }

    pub fn widen_head(&mut self, device: &Device) -> Tensor<2> {
        self.head = LinearConfig::new(16, 20).init(device);
        let features = Tensor::<2>::random([2, 16], Distribution::Default, device);
        self.head.forward(features).narrow(1, 10, 10) // ok (20 classes since the swap: 10 + 10)
    }
}

/// A stem built for RGB, replaced by a grayscale one before use.
pub fn grayscale(device: &Device) -> Backbone {
    let mut model = Backbone::new(device);
    model.stem = Conv2dConfig::new([1, HIDDEN], [3, 3])
        .with_padding(PaddingConfig2d::Same)
        .init(device); // ok
    model.norm = GroupNormConfig::new(HIDDEN, HIDDEN).init(device); // ok (instance-norm style: 48 groups of one)
    model
}

pub fn grayscale_logits(device: &Device) -> Tensor<2> {
    let model = grayscale(device);
    let images = Tensor::<4>::random([2, 1, 16, 16], Distribution::Default, device);
    model.forward(images).topk(CLASSES, 1) // ok (k == 10 classes)
}

pub fn small_logits(device: &Device) -> Tensor<2> {
    let model = Backbone::small(device).with_depthwise(device);
    let images = Tensor::<4>::random([2, IN_CHANNELS, 16, 16], Distribution::Default, device);
    model.forward(images).split_with_sizes(vec![2, 2], 1) // ok (the small model has 4 classes)
}

pub fn restored(path: &str, device: &Device) -> Result<Tensor<2>, RecordError> {
    let model = Backbone::from_config(&BackboneConfig::new(), device).try_load_file(path)?;
    let images = Tensor::<4>::random([2, IN_CHANNELS, 32, 32], Distribution::Default, device);
    Ok(model.forward(images).topk(3, 1)) // ok (3 of the 10 classes the file was saved with)
}

// ---------------------------------------------------------------------------------------------
// A multi-task model: heads of different widths in a `Vec`, a `Param` bias, `Ignored` names.
// ---------------------------------------------------------------------------------------------

#[derive(Module, Debug)]
pub struct MultiTask {
    trunk: Linear,
    heads: Vec<Linear>,
    bias: Param<Tensor<1>>,
    names: Ignored<Vec<String>>,
}

impl MultiTask {
    pub fn new(device: &Device) -> Self {
        let trunk = LinearConfig::new(HIDDEN, 16).init(device);
        let heads = [3, CLASSES]
            .iter()
            .map(|&classes| LinearConfig::new(16, classes).init(device))
            .collect();
        let bias = Param::from_tensor(Tensor::<1>::zeros([CLASSES], device));
        let names = Ignored(vec!["coarse".to_string(), "fine".to_string()]);
        Self { trunk, heads, bias, names }
    }

    pub fn fine(&self, x: Tensor<2>) -> Tensor<2> {
        let h = self.trunk.forward(x);
        let logits = self.heads[1].forward(h) + self.bias.val().unsqueeze_dim::<2>(0); // ok ([b, 10] + [1, 10])
        logits.topk(CLASSES, 1) // ok (heads[1] has 10 classes)
    }

    pub fn coarse(&self, x: Tensor<2>) -> Tensor<2, Int> {
        let h = self.trunk.forward(x);
        self.heads[0].forward(h).argtopk(2, 1) // ok (2 is below heads[0]'s 3 classes)
    }

    pub fn all(&self, x: Tensor<2>) -> Vec<Tensor<2>> {
        let h = self.trunk.forward(x);
        self.heads
            .iter()
            .map(|head| head.forward(h.clone()).narrow(1, 0, 3)) // ok (3 and 10 classes both hold 3)
            .collect()
    }

    pub fn last(&self, x: Tensor<2>) -> Vec<Tensor<2>> {
        let h = self.trunk.forward(x);
        let head = self.heads.last().expect("two heads");
        head.forward(h).split_with_sizes(vec![5, 5], 1) // ok (the last head is the 10-class one)
    }

    pub fn named(&self, x: Tensor<2>, name: &str) -> Option<Tensor<2>> {
        let h = self.trunk.forward(x);
        let index = self.names.0.iter().position(|n| n == name)?;
        Some(self.heads[index].forward(h).topk(3, 1)) // ok (both heads have at least 3 classes)
    }

    pub fn coarse_all(&self, x: Tensor<2>) -> Tensor<2, Int> {
        let h = self.trunk.forward(x);
        self.heads[0].forward(h).argtopk(3, 1) // expect: argtopk-k-not-below-size (miss: heads[0] of a Vec<Linear> field built by a map over [3, 10] in new, k == 3 classes)
    }
}

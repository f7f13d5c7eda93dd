//! The burn book's MNIST model, then the changes people make to it: a skip path joined to the
//! main path, a squeeze-and-excite gate, a group norm, grouped convolutions. The images come at
//! run time (`[batch_size, height, width]`); the layers built in `init` fix the channels and the
//! pool fixes the spatial size.
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig};
use burn::nn::{
    Dropout, DropoutConfig, GroupNorm, GroupNormConfig, Linear, LinearConfig, PaddingConfig2d,
    Relu,
};
use burn::prelude::*;
use burn::tensor::activation::sigmoid;

#[derive(Module, Debug)]
pub struct Model {
    conv1: Conv2d,
    conv2: Conv2d,
    pool: AdaptiveAvgPool2d,
    dropout: Dropout,
    linear1: Linear,
    linear2: Linear,
    activation: Relu,
}

#[derive(Config, Debug)]
pub struct ModelConfig {
    num_classes: usize,
    hidden_size: usize,
    #[config(default = "0.5")]
    dropout: f64,
}

impl ModelConfig {
    /// Returns the initialized model.
    pub fn init(&self, device: &Device) -> Model {
        Model {
            conv1: Conv2dConfig::new([1, 8], [3, 3]).init(device), // ok
            conv2: Conv2dConfig::new([8, 16], [3, 3]).init(device), // ok
            pool: AdaptiveAvgPool2dConfig::new([8, 8]).init(),
            activation: Relu::new(),
            linear1: LinearConfig::new(16 * 8 * 8, self.hidden_size).init(device),
            linear2: LinearConfig::new(self.hidden_size, self.num_classes).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // expect: dropout-probability-range
        }
    }
}

/// The training code's model: the book's, and one whose dropout was typed as a percentage.
pub fn models(device: &Device) -> (Model, Model) {
    let model = ModelConfig::new(10, 512).init(device);
    let config = ModelConfig::new(10, 512).with_dropout(50.0);
    (model, config.init(device))
}

impl Model {
    /// # Shapes
    ///   - Images [batch_size, height, width]
    ///   - Output [batch_size, num_classes]
    pub fn forward(&self, images: Tensor<3>) -> Tensor<2> {
        let [batch_size, height, width] = images.dims();
        let x = images.reshape([batch_size, 1, height, width]); // ok
        let x = self.conv1.forward(x); // [batch_size, 8, _, _]
        let x = self.dropout.forward(x);
        let x = self.conv2.forward(x); // [batch_size, 16, _, _]
        let x = self.dropout.forward(x);
        let x = self.activation.forward(x);
        let x = self.pool.forward(x); // [batch_size, 16, 8, 8]
        let x = x.reshape([batch_size, 16 * 8 * 8]); // ok
        let x = self.linear1.forward(x);
        let x = self.dropout.forward(x);
        let x = self.activation.forward(x);
        self.linear2.forward(x)
    }

    /// The feature maps after the pool, for a probe or a second head.
    fn features(&self, images: Tensor<3>) -> Tensor<4> {
        let [batch_size, height, width] = images.dims();
        let x = images.reshape([batch_size, 1, height, width]);
        let x = self.activation.forward(self.conv1.forward(x));
        let x = self.activation.forward(self.conv2.forward(x));
        self.pool.forward(x)
    }

    /// A skip path from the first convolution, pooled to the same 8x8.
    pub fn with_skip(&self, images: Tensor<3>) -> Vec<Tensor<4>> {
        let [batch_size, height, width] = images.dims();
        let x = images.reshape([batch_size, 1, height, width]);
        let skip = self.pool.forward(self.conv1.forward(x.clone())); // [batch_size, 8, 8, 8]
        let main = self.pool.forward(self.conv2.forward(self.conv1.forward(x))); // [batch_size, 16, 8, 8]
        let joined = Tensor::cat(vec![main.clone(), skip.clone()], 1); // ok
        let stacked = Tensor::cat(vec![main.clone(), skip.clone()], 2); // expect: cat-mismatched-shapes
        let summed = main.clone() + skip.clone(); // expect: binary-op-incompatible-shapes
        let gated = main.clone() * skip.clone().narrow(1, 0, 1); // ok
        let widened = main + skip.repeat_dim(1, 2); // ok
        vec![joined, stacked, summed, gated, widened]
    }

    /// Squeeze and excite over the pooled maps: a gate per channel.
    pub fn excite(&self, images: Tensor<3>) -> Tensor<2> {
        let x = self.features(images); // [batch_size, 16, 8, 8]
        let pooled = x.clone().mean_dim(3).mean_dim(2); // [batch_size, 16, 1, 1]
        let gate: Tensor<2> = sigmoid(pooled.clone()).squeeze_dims(&[2, 3]); // ok
        let wrong: Tensor<3> = pooled.clone().squeeze_dim(1); // expect: squeeze-dim-not-one
        let per_row = x.clone().narrow(2, 4, 4); // ok
        let past_end = x.narrow(3, 6, 4); // expect: narrow-out-of-range
        let _ = (wrong, per_row, past_end);
        gate
    }

    /// The first half of the channels against the second half.
    pub fn halves(&self, images: Tensor<3>) -> Tensor<4> {
        let x = self.features(images);
        let first = x.clone().narrow(1, 0, 8); // ok
        let second = x.narrow(1, 8, 16); // expect: narrow-out-of-range
        Tensor::cat(vec![first, second], 1)
    }
}

/// A variant with a norm and grouped convolutions built in `init`.
#[derive(Module, Debug)]
pub struct GroupedModel {
    conv: Conv2d,
    depthwise: Conv2d,
    norm: GroupNorm,
}

#[derive(Config, Debug)]
pub struct GroupedConfig {
    channels: usize,
}

impl GroupedConfig {
    pub fn init(&self, device: &Device) -> GroupedModel {
        GroupedModel {
            conv: Conv2dConfig::new([1, 24], [3, 3]).with_padding(PaddingConfig2d::Same).init(device), // ok
            depthwise: Conv2dConfig::new([24, 24], [3, 3]).with_groups(24).init(device), // ok
            norm: GroupNormConfig::new(5, 24).init(device), // expect: group-norm-groups-divide-channels
        }
    }

    pub fn init_pointwise(&self, device: &Device) -> Conv2d {
        Conv2dConfig::new([24, self.channels], [1, 1]).with_groups(3).init(device) // expect: conv-groups-divide-channels
    }
}

pub fn grouped(device: &Device) -> (GroupedModel, Conv2d, Conv2d) {
    let config = GroupedConfig::new(40);
    let model = config.init(device);
    let pointwise = config.init_pointwise(device);
    (model, pointwise, GroupedConfig::new(48).init_pointwise(device))
}

/// The channel count comes from the caller at run time: nothing is known.
pub fn grouped_from(channels: usize, groups: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([channels, channels * 2], [3, 3]).with_groups(groups).init(device) // ok
}

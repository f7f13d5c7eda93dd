// Grouped convolutions in a small vision backbone.
use burn::nn::conv::{
    Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, ConvTranspose2dConfig, DeformConv2dConfig,
};
use burn::nn::pool::MaxPool2dConfig;
use burn::prelude::*;

const CARDINALITY: usize = 5;

mod local {
    // A project type that happens to share burn's name.
    pub struct Conv2dConfig {
        pub channels: [usize; 2],
        pub groups: usize,
    }

    impl Conv2dConfig {
        pub fn new(channels: [usize; 2], _kernel: [usize; 2]) -> Self {
            Self { channels, groups: 1 }
        }
        pub fn with_groups(mut self, groups: usize) -> Self {
            self.groups = groups;
            self
        }
        pub fn init(&self) -> usize {
            self.channels[0] * self.groups
        }
    }
}

pub fn stem(device: &Device) -> Conv2d {
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(device) // expect: conv-groups-divide-channels
}

pub fn audio_frontend(device: &Device) -> Conv1d {
    Conv1dConfig::new(80, 256, 5).with_groups(3).init(device) // expect: conv-groups-divide-channels
}

pub fn blocks(device: &Device, groups: usize) -> Vec<Conv2d> {
    let depthwise = Conv2dConfig::new([32, 32], [3, 3]).with_groups(32).init(device); // ok
    let pointwise = Conv2dConfig::new([32, 64], [1, 1]).init(device); // ok
    let tuned = Conv2dConfig::new([64, 128], [3, 3]).with_groups(groups).init(device); // ok
    let resnext = Conv2dConfig::new([64, 64], [1, 1]).with_groups(CARDINALITY).init(device); // expect: conv-groups-divide-channels
    let literal = Conv2dConfig { groups: 3, ..Conv2dConfig::new([16, 16], [3, 3]) }.init(device); // expect: conv-groups-divide-channels
    vec![depthwise, pointwise, tuned, resnext, literal]
}

pub fn decoder(device: &Device) {
    let cfg = ConvTranspose2dConfig::new([48, 30], [4, 4]).with_groups(4);
    let _up = cfg.init(device); // expect: conv-groups-divide-channels
    let _deform = DeformConv2dConfig::new([64, 64], [3, 3]).with_weight_groups(3).init(device); // expect: conv-groups-divide-channels
    let _fine = DeformConv2dConfig::new([64, 64], [3, 3]).with_weight_groups(4).init(device); // ok
}

pub fn from_env(device: &Device) -> Conv2d {
    let groups: usize = std::env::var("GROUPS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(groups).init(device) // ok
}

pub fn look_alikes() -> usize {
    let _pool = MaxPool2dConfig::new([3, 3]).with_strides([2, 2]).init(); // ok
    local::Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init() // ok
}

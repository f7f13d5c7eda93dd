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

// Lines added with the rule file: the other configs, full paths, groups = 0.
pub fn more_configs(device: &Device) {
    let _c3 = burn::nn::conv::Conv3dConfig::new([24, 48], [3, 3, 3]).with_groups(5).init(device); // expect: conv-groups-divide-channels
    let _c3_ok = burn::nn::conv::Conv3dConfig::new([24, 48], [3, 3, 3]).with_groups(6).init(device); // ok
    let _t1 = burn::nn::conv::ConvTranspose1dConfig::new([16, 10], 4).with_groups(4).init(device); // expect: conv-groups-divide-channels
    let _t1_ok = burn::nn::conv::ConvTranspose1dConfig::new([16, 12], 4).with_groups(4).init(device); // ok
    let _t3 = burn_nn::modules::conv::ConvTranspose3dConfig::new([9, 9], [2, 2, 2]).with_groups(2).init(device); // expect: conv-groups-divide-channels
    let _zero = Conv2dConfig::new([8, 8], [3, 3]).with_groups(0).init(device); // expect: conv-groups-divide-channels
    let _c1_ok = Conv1dConfig::new(80, 256, 5).with_groups(16).with_stride(2).init(device); // ok
    // Only the output channels fail here: 64 % 3 == 1.
    let _out = Conv1dConfig::new(3, 64, 5).with_groups(3).init(device); // expect: conv-groups-divide-channels
}

pub fn channels_from_caller(device: &Device, channels_in: usize) -> Conv1d {
    // channels_in is unknown, but 10 % 4 != 0 fails whatever it is.
    Conv1dConfig::new(channels_in, 10, 3).with_groups(4).init(device) // expect: conv-groups-divide-channels
}

pub fn channels_from_caller_fine(device: &Device, channels_in: usize) -> Conv1d {
    Conv1dConfig::new(channels_in, 12, 3).with_groups(4).init(device) // ok
}

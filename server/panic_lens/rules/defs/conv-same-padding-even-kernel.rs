// A video model with 3D and deformable convolutions.
use burn::nn::conv::{Conv2dConfig, Conv3d, Conv3dConfig, DeformConv2dConfig};
use burn::nn::pool::MaxPool2dConfig;
use burn::nn::{PaddingConfig2d, PaddingConfig3d};
use burn::prelude::*;

const TEMPORAL: usize = 2;

mod local {
    pub enum PaddingConfig3d {
        Same,
    }
    pub struct Conv3dConfig;
    impl Conv3dConfig {
        pub fn new(_channels: [usize; 2], _kernel: [usize; 3]) -> Self {
            Conv3dConfig
        }
        pub fn with_padding(self, _p: PaddingConfig3d) -> Self {
            self
        }
        pub fn init(&self) {}
    }
}

pub fn video_stem(device: &Device) -> Conv3d {
    Conv3dConfig::new([3, 32], [2, 3, 3]).with_padding(PaddingConfig3d::Same).init(device) // expect: conv-same-padding-even-kernel
}

pub fn video_blocks(device: &Device, kernel: [usize; 3]) -> Vec<Conv3d> {
    let odd = Conv3dConfig::new([32, 32], [3, 3, 3]).with_padding(PaddingConfig3d::Same).init(device); // ok
    let valid = Conv3dConfig::new([32, 32], [2, 2, 2]).init(device); // ok
    let unknown = Conv3dConfig::new([32, 32], kernel).with_padding(PaddingConfig3d::Same).init(device); // ok
    let temporal = Conv3dConfig::new([32, 64], [TEMPORAL, 3, 3]).with_padding(PaddingConfig3d::Same).init(device); // expect: conv-same-padding-even-kernel
    vec![odd, valid, unknown, temporal]
}

pub fn alignment(device: &Device) {
    let cfg = DeformConv2dConfig::new([64, 64], [4, 4]).with_padding(PaddingConfig2d::Same);
    let _deform = cfg.init(device); // expect: conv-same-padding-even-kernel
    let _deform_ok = DeformConv2dConfig::new([64, 64], [3, 3]).with_padding(PaddingConfig2d::Same).init(device); // ok
    // Conv2d pads asymmetrically for even kernels, so this is fine in burn 0.22.
    let _conv2d = Conv2dConfig::new([64, 64], [4, 4]).with_padding(PaddingConfig2d::Same).init(device); // ok
    let _pool = MaxPool2dConfig::new([2, 2]).with_padding(PaddingConfig2d::Same).init(); // ok
}

pub fn look_alike() {
    local::Conv3dConfig::new([3, 32], [2, 3, 3]).with_padding(local::PaddingConfig3d::Same).init(); // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) {
    let _a = burn::nn::conv::Conv3dConfig::new([8, 8], [3, 3, 4]).with_padding(PaddingConfig3d::Same).init(device); // expect: conv-same-padding-even-kernel
    let _b = Conv3dConfig::new([8, 8], [3, 3, 4]).with_padding(PaddingConfig3d::Valid).init(device); // ok
    let _c = Conv3dConfig::new([8, 8], [3, 3, 4]).with_padding(PaddingConfig3d::Explicit(1, 1, 1)).init(device); // ok
    let _d = DeformConv2dConfig::new([8, 8], [5, 5]).with_padding(PaddingConfig2d::Same).init(device); // ok
}

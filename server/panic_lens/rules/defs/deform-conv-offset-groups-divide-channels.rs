// Deformable convolution head for object detection.
use burn::nn::conv::{Conv2dConfig, DeformConv2d, DeformConv2dConfig};
use burn::prelude::*;

const OFFSET_GROUPS: usize = 6;

struct DeformConv2dConfigLocal {
    offset_groups: usize,
}

impl DeformConv2dConfigLocal {
    fn with_offset_groups(mut self, offset_groups: usize) -> Self {
        self.offset_groups = offset_groups;
        self
    }
}

pub fn head(device: &Device) -> DeformConv2d {
    DeformConv2dConfig::new([64, 128], [3, 3]).with_offset_groups(3).init(device) // expect: deform-conv-offset-groups-divide-channels
}

pub fn heads(device: &Device, offset_groups: usize) -> Vec<DeformConv2d> {
    let a = DeformConv2dConfig::new([64, 128], [3, 3]).with_offset_groups(4).init(device); // ok
    let b = DeformConv2dConfig::new([256, 256], [3, 3]).init(device); // ok
    let c = DeformConv2dConfig::new([64, 64], [3, 3]).with_offset_groups(offset_groups).init(device); // ok
    let cfg = DeformConv2dConfig::new([100, 100], [3, 3]).with_offset_groups(OFFSET_GROUPS);
    let d = cfg.init(device); // expect: deform-conv-offset-groups-divide-channels
    // Offset groups constrain only the input channels (96 % 8 == 0); the 36 output channels do not matter.
    let e = DeformConv2dConfig::new([96, 36], [3, 3]).with_offset_groups(8).init(device); // ok
    vec![a, b, c, d, e]
}

pub fn look_alikes(device: &Device) {
    let _plain = Conv2dConfig::new([64, 128], [3, 3]).init(device); // ok
    let _local = DeformConv2dConfigLocal { offset_groups: 1 }.with_offset_groups(7); // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<DeformConv2d> {
    let a = burn::nn::conv::DeformConv2dConfig::new([30, 30], [3, 3]).with_offset_groups(0).init(device); // expect: deform-conv-offset-groups-divide-channels
    let b = DeformConv2dConfig::new([30, 30], [3, 3]).with_offset_groups(5).with_weight_groups(3).init(device); // ok
    let c = DeformConv2dConfig { offset_groups: 4, ..DeformConv2dConfig::new([30, 30], [3, 3]) }.init(device); // expect: deform-conv-offset-groups-divide-channels
    vec![a, b, c]
}

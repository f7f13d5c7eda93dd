// Normalization layers of a diffusion U-Net.
use burn::nn::{GroupNorm, GroupNormConfig, InstanceNormConfig, LayerNormConfig};
use burn::prelude::*;

const GROUPS: usize = 32;

pub struct GroupNormConfigV2 {
    pub num_groups: usize,
    pub num_channels: usize,
}

impl GroupNormConfigV2 {
    pub fn new(num_groups: usize, num_channels: usize) -> Self {
        Self { num_groups, num_channels }
    }
    pub fn init(&self) -> usize {
        self.num_groups + self.num_channels
    }
}

pub fn block_norms(device: &Device) -> Vec<GroupNorm> {
    let n1 = GroupNormConfig::new(32, 64).init(device); // ok
    let n2 = GroupNormConfig::new(32, 48).init(device); // expect: group-norm-groups-divide-channels
    let n3 = GroupNormConfig::new(64, 32).with_affine(false).init(device); // expect: group-norm-groups-divide-channels
    let n4 = GroupNormConfig::new(GROUPS, 3 * 32).init(device); // ok
    let n5 = GroupNormConfig::new(GROUPS, 40).init(device); // expect: group-norm-groups-divide-channels
    vec![n1, n2, n3, n4, n5]
}

pub fn norm_for(device: &Device, channels: usize) -> GroupNorm {
    GroupNormConfig::new(32, channels).init(device) // ok
}

pub fn others(device: &Device) -> usize {
    let _inst = InstanceNormConfig::new(48).init(device); // ok
    let _ln = LayerNormConfig::new(48).init(device); // ok
    GroupNormConfigV2::new(32, 48).init() // ok
}

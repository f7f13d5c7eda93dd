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

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<GroupNorm> {
    // Arguments swapped: 64 channels in 32 groups was meant.
    let swapped = burn::nn::GroupNormConfig::new(64, 32).init(device); // expect: group-norm-groups-divide-channels
    let literal = GroupNormConfig { num_groups: 5, ..GroupNormConfig::new(1, 64) }.init(device); // expect: group-norm-groups-divide-channels
    let fine = GroupNormConfig { num_groups: 8, ..GroupNormConfig::new(1, 64) }.init(device); // ok
    let later = GroupNormConfig::new(3, 64).with_epsilon(1e-6).with_affine(false);
    let later = GroupNormConfig { num_groups: 4, ..later }.init(device); // ok
    // num_groups = 0 panics with Rust's remainder-by-zero error, not this assert.
    let zero = GroupNormConfig::new(0, 64).init(device); // ok
    vec![swapped, literal, fine, later, zero]
}

//! The crate's own `#[derive(Config)]` configs: `new` with the required fields, defaults,
//! `Option`s, `with_` setters, struct literals over `..new(..)`, a config read through a local, a
//! parameter and `self` in the config's own `init`.
use burn::nn::{Dropout, DropoutConfig, GroupNorm, GroupNormConfig, Linear, LinearConfig};
use burn::prelude::*;

use crate::hparams::NormConfig;

#[derive(Module, Debug)]
pub struct Block {
    norm: GroupNorm,
    proj: Linear,
    dropout: Dropout,
}

#[derive(Config, Debug)]
pub struct BlockConfig {
    channels: usize,
    #[config(default = "5")]
    groups: usize,
    #[config(default = 0.1)]
    dropout: f64,
    hidden: Option<usize>,
    #[config(default = "channels / 2")]
    d_out: usize,
}

impl BlockConfig {
    pub fn init(&self, device: &Device) -> Block {
        Block {
            norm: GroupNormConfig::new(self.groups, self.channels).init(device), // expect: group-norm-groups-divide-channels
            proj: LinearConfig::new(self.channels, self.d_out).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // expect: dropout-probability-range
        }
    }
}

pub fn build(device: &Device, from_cli: usize) -> Vec<Block> {
    let a = BlockConfig::new(32).init(device); // (self.groups = 5 in init: 32 % 5)
    let fine = BlockConfig::new(30).init(device);
    let risky = BlockConfig::new(30).with_dropout(1.5).init(device); // (self.dropout = 1.5 in init)
    let unknown = BlockConfig::new(from_cli).init(device);
    vec![a, fine, risky, unknown]
}

pub fn locals(device: &Device, from_cli: usize, flag: bool) -> Vec<GroupNorm> {
    let cfg = BlockConfig::new(32).with_groups(3);
    let a = GroupNormConfig::new(cfg.groups, cfg.channels).init(device); // expect: group-norm-groups-divide-channels
    let ok = BlockConfig::new(30).with_groups(3);
    let b = GroupNormConfig::new(ok.groups, ok.channels).init(device); // ok
    let half = BlockConfig::new(42);
    let c = GroupNormConfig::new(4, half.d_out).init(device); // expect: group-norm-groups-divide-channels
    let lit = BlockConfig { groups: 7, ..BlockConfig::new(48) };
    let d = GroupNormConfig::new(lit.groups, lit.channels).init(device); // expect: group-norm-groups-divide-channels
    let mut changed = BlockConfig::new(48);
    changed.groups = 4;
    let e = GroupNormConfig::new(changed.groups, changed.channels).init(device); // ok (changed since)
    let mut branch = BlockConfig::new(48).with_groups(6);
    if flag {
        branch = BlockConfig::new(48);
    }
    let f = GroupNormConfig::new(branch.groups, branch.channels).init(device); // ok (one path only)
    let rt = BlockConfig::new(from_cli);
    let g = GroupNormConfig::new(rt.groups, rt.channels).init(device); // ok (channels at run time)
    let loaded = BlockConfig::load("block.json").unwrap();
    let h = GroupNormConfig::new(loaded.groups, loaded.channels).init(device); // ok (read from a file)
    let shared = NormConfig::new(32);
    let i = GroupNormConfig::new(shared.groups, shared.channels).init(device); // expect: group-norm-groups-divide-channels
    let fits = NormConfig::new(36);
    let j = GroupNormConfig::new(fits.groups, fits.channels).init(device); // ok
    vec![a, b, c, d, e, f, g, h, i, j]
}

fn norm_of(cfg: &BlockConfig, device: &Device) -> GroupNorm {
    GroupNormConfig::new(cfg.groups, cfg.channels).init(device) // expect: group-norm-groups-divide-channels
}

pub fn through_a_parameter(device: &Device) -> Vec<GroupNorm> {
    vec![
        norm_of(&BlockConfig::new(40), device),
        norm_of(&BlockConfig::new(34).with_groups(4), device),
    ]
}

/// Named like a config, with no derive: its `new` is the crate's own and sets other values.
#[derive(Debug)]
pub struct HeadConfig {
    channels: usize,
    groups: usize,
}

impl HeadConfig {
    pub fn new(channels: usize) -> Self {
        Self { channels, groups: channels / 8 }
    }

    pub fn with_groups(self, groups: usize) -> Self {
        Self { groups: groups * 2, ..self }
    }

    pub fn init(&self, device: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, self.channels).init(device) // ok (no derive: no defaults)
    }
}

pub fn lookalikes(device: &Device) -> Vec<GroupNorm> {
    let head = HeadConfig::new(32).with_groups(3);
    let a = GroupNormConfig::new(head.groups, head.channels).init(device); // ok (the crate's own with_groups doubles it)
    let b = HeadConfig::new(48).init(device);
    vec![a, b]
}

/// A struct with no derive and no constructor: its fields are set by its one literal, never
/// by defaults.
pub struct PlainConfig {
    pub channels: usize,
    pub groups: usize,
}

pub fn plain(device: &Device, groups: usize) -> GroupNorm {
    let p = PlainConfig { channels: 32, groups };
    GroupNormConfig::new(p.groups, p.channels).init(device) // ok (groups is a parameter)
}

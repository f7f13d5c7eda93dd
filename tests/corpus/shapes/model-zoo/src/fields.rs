//! Values read from the fields of a struct set in the same function.
use burn::nn::{DropoutConfig, GroupNorm, GroupNormConfig};
use burn::prelude::*;

pub struct Dims {
    pub channels: usize,
    pub groups: usize,
}

struct Hyper {
    dropout: f64,
    width: usize,
}

struct Width(usize);

pub struct Batch {
    pub images: Tensor<4>,
    pub lengths: Tensor<1, Int>,
}

pub fn norms(device: &Device, groups_from_cli: usize, flag: bool) -> Vec<GroupNorm> {
    let d = Dims { channels: 48, groups: 5 };
    let a = GroupNormConfig::new(d.groups, d.channels).init(device); // expect: group-norm-groups-divide-channels
    let fine = Dims { channels: 48, groups: 6 };
    let b = GroupNormConfig::new(fine.groups, fine.channels).init(device); // ok
    let rt = Dims { channels: 48, groups: groups_from_cli };
    let c = GroupNormConfig::new(rt.groups, rt.channels).init(device); // ok
    let mut changed = Dims { channels: 48, groups: 5 };
    changed.groups = 4;
    let e = GroupNormConfig::new(changed.groups, changed.channels).init(device); // ok
    let mut branch = Dims { channels: 48, groups: 6 };
    if flag {
        branch.groups = 5;
    }
    let f = GroupNormConfig::new(branch.groups, branch.channels).init(device); // ok
    let wide = Dims { channels: 50, ..fine };
    let g = GroupNormConfig::new(wide.groups, wide.channels).init(device); // expect: group-norm-groups-divide-channels
    vec![a, b, c, e, f, g]
}

pub fn looped(device: &Device, choices: &[usize]) -> GroupNorm {
    let mut m = Dims { channels: 48, groups: 5 };
    for &g in choices {
        m.groups = g;
    }
    GroupNormConfig::new(m.groups, m.channels).init(device) // ok
}

pub fn hyper(device: &Device) -> Vec<Tensor<2>> {
    let h = Hyper { dropout: 1.5, width: 12 };
    let _drop = DropoutConfig::new(h.dropout).init(); // expect: dropout-probability-range
    let safe = Hyper { dropout: 0.2, width: 8 };
    let _ok = DropoutConfig::new(safe.dropout).init(); // ok
    let x = Tensor::<2>::zeros([2, 10], device);
    let a = x.clone().narrow(1, 0, h.width); // expect: narrow-out-of-range
    let b = x.clone().narrow(1, 0, safe.width); // ok
    let w = Width(11);
    let c = x.narrow(1, 0, w.0); // expect: narrow-out-of-range
    vec![a, b, c]
}

pub fn batch(device: &Device) -> Vec<Tensor<4>> {
    let batch = Batch {
        images: Tensor::zeros([8, 3, 32, 32], device),
        lengths: Tensor::zeros([8], device),
    };
    let a = batch.images.clone().narrow(1, 2, 2); // expect: narrow-out-of-range
    let b = batch.images.clone().narrow(1, 1, 2); // ok
    let _n: i64 = batch.lengths.into_scalar(); // expect: into-scalar-multiple-elements
    vec![a, b]
}

/// Look-alikes: the struct comes from the caller.
pub fn from_caller(batch: Batch, d: Dims, device: &Device) -> (Tensor<4>, GroupNorm) {
    let a = batch.images.narrow(1, 2, 2); // ok
    (a, GroupNormConfig::new(d.groups, d.channels).init(device)) // ok
}

//! Values passed to a local helper function called with constants; return values flowing back.
//! A panic reached through a helper is expected on the burn call inside the helper.
use burn::nn::{GroupNorm, GroupNormConfig};
use burn::prelude::*;

fn group_norm(groups: usize, channels: usize, device: &Device) -> GroupNorm {
    GroupNormConfig::new(groups, channels).init(device) // expect: group-norm-groups-divide-channels
}

fn safe_norm(groups: usize, channels: usize, device: &Device) -> GroupNorm {
    GroupNormConfig::new(groups, channels).init(device) // ok (only called with 8 and 64)
}

fn runtime_norm(groups: usize, channels: usize, device: &Device) -> GroupNorm {
    GroupNormConfig::new(groups, channels).init(device) // ok (only called with run-time values)
}

fn crop(x: Tensor<2>, width: usize) -> Tensor<2> {
    x.narrow(1, 0, width) // expect: narrow-out-of-range
}

fn trimmed(x: Tensor<2>, mut width: usize) -> Tensor<2> {
    width -= 4;
    x.narrow(1, 0, width) // ok (called with 12, trimmed to 8 of 10)
}

fn features(rows: usize, cols: usize, device: &Device) -> Tensor<2> {
    Tensor::zeros([rows, cols], device)
}

fn double(n: usize) -> usize {
    n * 2
}

fn depth(n: usize) -> usize {
    if n == 0 { 1 } else { depth(n - 1) * 2 }
}

/// Never called: its parameters are unknown.
pub fn unused(x: Tensor<2>, k: usize) -> Tensor<2> {
    x.topk(k, 1) // ok
}

/// The crate's own function named like burn's `generate_sinusoids`.
fn generate_sinusoids(length: usize, d_model: usize) -> Vec<f32> {
    vec![0.0; length * d_model]
}

pub struct Blocks {
    width: usize,
}

impl Blocks {
    fn norm(&self, groups: usize, device: &Device) -> GroupNorm {
        GroupNormConfig::new(groups, 40).init(device) // expect: group-norm-groups-divide-channels
    }

    fn head(rows: usize, device: &Device) -> Tensor<2> {
        Tensor::ones([rows, 6], device)
    }

    pub fn build(&self, device: &Device) -> Vec<Tensor<2>> {
        let _ok = self.norm(8, device);
        let _bad = self.norm(3, device);
        let h = Self::head(5, device);
        let a = h.clone().narrow(1, 4, 4); // expect: narrow-out-of-range
        let b = h.narrow(0, 0, self.width); // ok (width comes from the caller's struct)
        vec![a, b]
    }
}

pub fn build(device: &Device, n: usize) -> Vec<Tensor<2>> {
    let _a = group_norm(8, 64, device);
    let _b = group_norm(5, 64, device);
    let _c = safe_norm(8, 64, device);
    let _d = runtime_norm(n, 64, device);
    let x = Tensor::<2>::zeros([4, 10], device);
    let _e = crop(x.clone(), 6);
    let _f = crop(x.clone(), 12);
    let _g = trimmed(x, 12);
    let f = features(3, 7, device);
    let h = f.clone().narrow(1, 5, 4); // expect: narrow-out-of-range
    let i = f.narrow(1, 3, 4); // ok
    let _j = GroupNormConfig::new(3, double(8)).init(device); // expect: group-norm-groups-divide-channels
    let _k = GroupNormConfig::new(4, double(8)).init(device); // ok
    let _l = GroupNormConfig::new(4, depth(3)).init(device); // ok
    let _m = GroupNormConfig::new(3, double(n)).init(device); // ok (n comes at run time)
    let _s = generate_sinusoids(100, 33); // ok (the crate's own function)
    vec![h, i]
}

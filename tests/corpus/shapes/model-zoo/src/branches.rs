//! Values and shapes set in branches: known after the branch only when every path agrees (or
//! every path panics); a call behind a guard that returns is not reached.
use burn::nn::{GroupNorm, GroupNormConfig};
use burn::prelude::*;
use burn::tensor::activation::{gelu, relu};

pub fn tensors(flag: bool, mode: u8, device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([4, 8], device);
    let one = if flag { x.clone().reshape([8, 4]) } else { x.clone() };
    let a = one.narrow(1, 5, 2); // ok (only the reshaped path is too narrow)
    let both = if flag { relu(x.clone()) } else { gelu(x.clone()) };
    let b = both.narrow(1, 5, 4); // expect: narrow-out-of-range
    let m = match mode {
        0 => x.clone(),
        1 => x.clone() * 2.0,
        _ => x.clone().exp(),
    };
    let c = m.narrow(0, 3, 2); // expect: narrow-out-of-range
    let t = if flag { x.clone() } else { x.clone().transpose() };
    let d = t.narrow(0, 3, 2); // ok (the transposed path has 8 rows)
    vec![a, b, c, d]
}

pub fn values(flag: bool, mode: u8, device: &Device) -> Vec<GroupNorm> {
    let groups = if flag { 5 } else { 6 };
    let a = GroupNormConfig::new(groups, 48).init(device); // ok (6 divides 48)
    let same = if flag { 5 } else { 5 };
    let b = GroupNormConfig::new(same, 48).init(device); // expect: group-norm-groups-divide-channels
    let mut g = 6;
    if flag {
        g = 5;
    }
    let c = GroupNormConfig::new(g, 48).init(device); // ok
    let k = match mode {
        0 => 3,
        1 => 6,
        _ => 8,
    };
    let d = GroupNormConfig::new(k, 48).init(device); // ok
    let late;
    if flag {
        late = 5;
    } else {
        late = 7;
    }
    let e = GroupNormConfig::new(late, 48).init(device); // expect: group-norm-groups-divide-channels (miss: a deferred let, 5 or 7, and both panic)
    vec![a, b, c, d, e]
}

/// A guard that returns before the call: the call is never reached with a bad count.
pub fn guarded(device: &Device) -> Option<GroupNorm> {
    let groups = 5;
    if 48 % groups != 0 {
        return None;
    }
    Some(GroupNormConfig::new(groups, 48).init(device)) // ok (the guard returns before the call when 5 does not divide 48)
}

/// The bad count is only used when a run-time flag says so.
pub fn optional(device: &Device, use_groups: bool) -> Option<GroupNorm> {
    if use_groups {
        Some(GroupNormConfig::new(5, 48).init(device)) // expect: group-norm-groups-divide-channels
    } else {
        None
    }
}

/// Data chosen by a branch: each branch a list of values of one length.
pub fn one_hot_rows(flag: bool, device: &Device) -> (Tensor<2>, Tensor<2>) {
    let values = if flag { vec![1.0_f32, 0.0, 0.0, 1.0] } else { vec![0.0_f32, 1.0, 1.0, 0.0] };
    let rows = Tensor::from_data(TensorData::new(values, [2, 2]), device); // ok (4 values either way)
    let wide = match flag {
        true => vec![1.0_f32; 6],
        false => vec![0.0_f32; 6],
    };
    let bad = Tensor::from_data(TensorData::new(wide, [2, 2]), device); // expect: tensor-data-shape-mismatch
    (rows, bad)
}

//! Each shape again, with the crate's own types and functions named like burn's (imported by
//! name, so burn's are not in scope here): nothing panics.
use crate::hparams::{BAD_DROPOUT, D_MODEL, N_HEADS};
use crate::lookalike::{relu, DropoutConfig, GroupNormConfig, Tensor};

const GROUPS: usize = 5;

pub fn elementwise() -> Tensor {
    let x = Tensor::zeros([4, 8]);
    relu(x).narrow(1, 4, 8) // ok
}

pub fn reshaping() -> Vec<Tensor> {
    let x = Tensor::zeros([2, 3]);
    let a = x.clone().swap_dims(0, 1).narrow(1, 2, 2); // ok
    let b = x.clone().reshape([3, 2]).narrow(1, 1, 4); // ok
    let c = Tensor::cat(vec![x.clone(), Tensor::zeros([2, 5])], 0); // ok
    vec![a, b, c]
}

fn norm(groups: usize, channels: usize) -> usize {
    GroupNormConfig::new(groups, channels).init() // ok
}

pub fn helpers_and_consts() -> Vec<usize> {
    vec![
        norm(5, 48),
        GroupNormConfig::new(GROUPS, D_MODEL).init(), // ok
        GroupNormConfig::new(N_HEADS, D_MODEL).init(), // ok
    ]
}

pub fn fields_and_floats() -> Vec<f64> {
    let cfg = GroupNormConfig { num_groups: 5, num_channels: 48 };
    let groups = cfg.init() as f64; // ok
    let p = DropoutConfig::new(BAD_DROPOUT).init(); // ok
    let q = DropoutConfig { prob: 1.5 }.init(); // ok
    vec![groups, p, q]
}

pub fn loops() -> Vec<Tensor> {
    let scores = Tensor::zeros([4, 6]);
    let mut out = Vec::new();
    for k in [1, 3, 8] {
        out.push(scores.clone().topk(k, 1)); // ok
    }
    let crop = |n: usize| scores.clone().narrow(1, 0, n); // ok
    out.push(crop(9));
    out
}

pub fn scoping() -> usize {
    const GROUPS: usize = 7;
    GroupNormConfig::new(GROUPS, 48).init() // ok
}

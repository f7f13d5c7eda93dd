//! `for` loops over a literal array or a constant range, and closures.
use burn::nn::{GroupNorm, GroupNormConfig};
use burn::prelude::*;

pub fn topk_sweep(device: &Device) -> Vec<Tensor<2>> {
    let scores = Tensor::<2>::zeros([4, 6], device);
    let mut out = Vec::new();
    for k in [1, 3, 8] {
        out.push(scores.clone().topk(k, 1)); // expect: topk-k-out-of-range
    }
    for k in [1, 3, 6] {
        out.push(scores.clone().topk(k, 1)); // ok
    }
    for k in 1..=4 {
        out.push(scores.clone().topk(k, 0)); // ok
    }
    for k in 2..8 {
        out.push(scores.clone().topk(k, 1)); // expect: topk-k-out-of-range
    }
    for k in 0..6 {
        out.push(scores.clone().narrow(1, k, 1)); // ok
    }
    out
}

pub fn group_sweep(device: &Device, choices: Vec<usize>) -> Vec<GroupNorm> {
    let mut norms = Vec::new();
    for groups in [2, 4, 6] {
        norms.push(GroupNormConfig::new(groups, 20).init(device)); // expect: group-norm-groups-divide-channels
    }
    for groups in [1, 2, 4, 5] {
        norms.push(GroupNormConfig::new(groups, 20).init(device)); // ok
    }
    for groups in choices {
        norms.push(GroupNormConfig::new(groups, 20).init(device)); // ok
    }
    norms
}

/// Look-alikes: values a loop changes are not known after it.
pub fn mutated(device: &Device, n_halvings: usize, depth: usize) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([2, 16], device);
    let mut width = 32;
    for _ in 0..n_halvings {
        width /= 2;
    }
    let a = x.clone().narrow(1, 0, width); // ok
    let mut h = Tensor::<2>::zeros([2, 4], device);
    for _ in 0..depth {
        h = Tensor::cat(vec![h.clone(), h], 1);
    }
    let b = h.narrow(1, 2, 4); // ok
    let mut k = 8;
    while k > 6 {
        k -= 1;
    }
    let c = x.topk(k, 1); // ok
    vec![a, b, c]
}

pub fn closures(device: &Device, w: usize) -> Vec<Tensor<2>> {
    let scores = Tensor::<2>::zeros([4, 6], device);
    let crop = |x: Tensor<2>, n: usize| x.narrow(1, 0, n); // expect: narrow-out-of-range
    let a = crop(scores.clone(), 4);
    let b = crop(scores.clone(), 9);
    let safe = |x: Tensor<2>, n: usize| x.narrow(1, 0, n); // ok (only called with 2)
    let c = safe(scores.clone(), 2);
    let runtime = |x: Tensor<2>| x.narrow(1, 0, w); // ok (w comes from the caller)
    let d = runtime(scores.clone());
    let _never = |x: Tensor<2>| x.narrow(1, 0, 99); // ok (never called; x is its parameter)
    let tops: Vec<Tensor<2>> = [2, 4, 7].into_iter().map(|k| scores.clone().topk(k, 1)).collect(); // expect: topk-k-out-of-range
    let fine: Vec<Tensor<2>> = [2, 4, 6].into_iter().map(|k| scores.clone().topk(k, 1)).collect(); // ok
    let mut all = vec![a, b, c, d];
    all.extend(tops);
    all.extend(fine);
    all
}

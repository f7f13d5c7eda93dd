// Top-k predictions for a small classifier.
use burn::prelude::*;

const NUM_CLASSES: usize = 3;

mod local {
    pub struct Scores(pub Vec<f32>);

    impl Scores {
        pub fn topk(mut self, k: usize, _dim: usize) -> Vec<f32> {
            self.0.truncate(k);
            self.0
        }
    }
}

pub fn predictions(device: &Device) -> Tensor<2> {
    let logits = Tensor::<2>::zeros([16, NUM_CLASSES], device);
    let _top3 = logits.clone().topk(3, 1); // ok
    let _top1 = logits.clone().topk(1, -1); // ok
    let (_v, _i) = logits.clone().topk_with_indices(5, 1); // expect: topk-k-out-of-range
    logits.topk(10, 1) // expect: topk-k-out-of-range
}

pub fn beams(device: &Device) -> Tensor<1, Int> {
    let scores = Tensor::<1, Int>::from_ints([4, 1, 7], device);
    scores.topk(4, 0) // expect: topk-k-out-of-range
}

pub fn best(logits: Tensor<2>, k: usize) -> Tensor<2> {
    logits.topk(k, 1) // ok
}

pub fn look_alikes() -> usize {
    let s = local::Scores(vec![0.1, 0.9]).topk(10, 1); // ok
    let mut v = vec![3, 1, 2];
    v.truncate(10); // ok
    s.len() + v.len()
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Tensor<2> {
    let x = Tensor::<2>::zeros([8, 5], device);
    let _all = x.clone().topk(5, 1); // ok
    let _neg = x.clone().topk(6, -1); // expect: topk-k-out-of-range
    let _rows = x.clone().topk(8, 0); // ok
    x.topk(9, -2) // expect: topk-k-out-of-range
}

// Ranking class scores.
use burn::prelude::*;

const CLASSES: usize = 5;

mod local {
    pub struct Ranker;

    impl Ranker {
        pub fn argtopk(&self, k: usize, _dim: usize) -> Vec<usize> {
            (0..k).collect()
        }
    }
}

pub fn ranks(device: &Device) -> Tensor<2, Int> {
    let scores = Tensor::<2>::zeros([8, CLASSES], device);
    let _top2 = scores.clone().argtopk(2, 1); // ok
    let _values = scores.clone().topk(CLASSES, 1); // ok
    let _all = scores.clone().argtopk(CLASSES, 1); // expect: argtopk-k-not-below-size
    scores.argtopk(9, -1) // expect: argtopk-k-not-below-size
}

pub fn best(scores: Tensor<2>, k: usize) -> Tensor<2, Int> {
    scores.argtopk(k, 1) // ok
}

pub fn look_alikes() -> usize {
    let r = local::Ranker.argtopk(10, 1); // ok
    let mut v = vec![3, 1, 2];
    v.sort_unstable(); // ok
    r.len() + v.len()
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Tensor<2, Int> {
    let x = Tensor::<2>::zeros([4, 6], device);
    let _below = x.clone().argtopk(5, -1); // ok
    let _rows = x.clone().argtopk(4, 0); // expect: argtopk-k-not-below-size
    x.argtopk(3, -2) // ok
}

// Sequence models: time-major and batch-major layouts.
use burn::prelude::*;

// More of this panic: the corpus example tests/corpus/panics/movedim-duplicate-dims/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(x: Tensor<4>, n: i32) -> Vec<Tensor<4>> {
    let a = x.clone().movedim(vec![0, 0], vec![1, 2]); // expect: movedim-duplicate-dims
    let b = x.clone().movedim(2, vec![-1, 3]); // expect: movedim-duplicate-dims
    let c = x.clone().movedim(vec![-1, -2], vec![0, 1]); // ok
    // Dim 4 is outside the rank: the dim-index check panics first.
    let d = x.clone().movedim(vec![4, 4], vec![0, 1]); // ok
    let e = x.clone().movedim(vec![4], vec![1, 1]); // ok
    let f = x.clone().movedim(vec![n, 1], vec![0, 0]); // ok (n is not known here)
    let g = Tensor::movedim(x.clone(), vec![0, 1], vec![3, -1]); // expect: movedim-duplicate-dims
    let h = x.clone().movedim(1, 2); // ok
    vec![a, b, c, d, e, f, g, h]
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.movedim(vec![0, 0], vec![1, 2]) // ok (the rank is not known)
}

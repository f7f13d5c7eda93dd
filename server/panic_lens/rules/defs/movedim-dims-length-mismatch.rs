// Moving feature axes around before attention.
use burn::prelude::*;

// More of this panic: the corpus example tests/corpus/panics/movedim-dims-length-mismatch/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(x: Tensor<4>, n: usize) -> Vec<Tensor<4>> {
    let a = x.clone().movedim(vec![0, 1], 3); // expect: movedim-dims-length-mismatch
    let b = x.clone().movedim(-1, vec![0, 1]); // expect: movedim-dims-length-mismatch
    let c = x.clone().movedim(vec![-1, -2], vec![0, 1]); // ok
    // A source repeated (1 and -3) panics first, with the duplicate message.
    let d = x.clone().movedim(vec![1, -3], vec![0]); // expect: movedim-duplicate-dims
    // Dim 4 is outside the rank: the dim-index check panics first.
    let e = x.clone().movedim(vec![4], vec![0, 1]); // ok
    let f = x.clone().movedim(vec![n, 1], vec![0]); // ok (n is not known here)
    let g = Tensor::movedim(x.clone(), vec![0, 1, 2], vec![3, 2]); // expect: movedim-dims-length-mismatch
    vec![a, b, c, d, e, f, g]
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.movedim(vec![0, 1], vec![1]) // ok (the rank is not known)
}

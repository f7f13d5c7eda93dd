// Padding images before a convolution.
use burn::prelude::*;
use burn::tensor::ops::PadMode;

// More of this panic: the corpus example tests/corpus/panics/pad-too-many-pairs/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(x: Tensor<3>, p: usize) -> Vec<Tensor<3>> {
    let pairs = vec![(1, 1), (1, 1), (1, 1), (1, 1)];
    let a = x.clone().pad(pairs, PadMode::Edge); // expect: pad-too-many-pairs
    let b = x.clone().pad(vec![(1, 1), (2, 2), (0, 0)], PadMode::Reflect); // ok
    let c = x.clone().pad(&[(1, 1), (1, 1)][..], PadMode::Edge); // ok
    let d = x.clone().pad([(p, p), (p, p), (p, p), (p, p)], PadMode::Edge); // ok (p is not known here)
    let e = Tensor::pad(x.clone(), [(0, 0); 4], PadMode::Edge); // expect: pad-too-many-pairs
    vec![a, b, c, d, e]
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.pad([(1, 1), (1, 1), (1, 1)], PadMode::Edge) // ok (the rank is not known)
}

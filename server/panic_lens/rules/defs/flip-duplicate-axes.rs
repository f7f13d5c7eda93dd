// Data augmentation: mirrored copies of images and sequences.
use burn::prelude::*;

// More of this panic: the corpus example tests/corpus/panics/flip-duplicate-axes/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(x: Tensor<3>, device: &Device) -> Tensor<3> {
    let _neg = x.clone().flip([-1, 2]); // expect: flip-duplicate-axes
    let _first = x.clone().flip([-3, 0]); // expect: flip-duplicate-axes
    let _distinct = x.clone().flip([-1, -2, -3]); // ok
    // Axis 3 is outside the rank: the dim-index check panics first.
    let _out = x.clone().flip([3, 3]); // ok
    let _empty = x.clone().flip::<0>([]); // ok
    let ints = Tensor::<2, Int>::zeros([2, 2], device);
    let _i = Tensor::flip(ints, [0, 0]); // expect: flip-duplicate-axes
    x.flip([0, 1, 2]) // ok
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.flip([0, 0]) // ok (the rank is not known)
}

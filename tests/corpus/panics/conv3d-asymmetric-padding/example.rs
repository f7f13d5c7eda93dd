// Video model: functional 3-D convolutions with hand-made padding.
use burn::prelude::*;
use burn::tensor::module::{conv2d, conv3d};
use burn::tensor::ops::{ConvOptions, PaddedConvOptions};

mod local {
    pub struct PaddedConvOptions {
        pub start: [usize; 3],
        pub end: [usize; 3],
    }
    impl PaddedConvOptions {
        pub fn asymmetric(start: [usize; 3], end: [usize; 3]) -> Self {
            Self { start, end }
        }
    }
    pub fn conv3d(options: PaddedConvOptions) -> usize {
        options.start[0] + options.end[0]
    }
}

pub fn blocks(x: Tensor<5>, w: Tensor<5>, pad: [usize; 3]) -> Vec<Tensor<5>> {
    let same = conv3d(x.clone(), w.clone(), None, ConvOptions::new([1, 1, 1], [1, 1, 1], [1, 1, 1], 1)); // ok
    let even = conv3d(x.clone(), w.clone(), None, PaddedConvOptions::asymmetric([1, 1, 1], [0, 0, 0], [1, 1, 1], [1, 1, 1], 1)); // expect: conv3d-asymmetric-padding
    let equal = conv3d(x.clone(), w.clone(), None, PaddedConvOptions::asymmetric([1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1)); // ok
    let chosen = conv3d(x.clone(), w.clone(), None, PaddedConvOptions::asymmetric([1, 1, 1], pad, [1, 1, 1], [1, 1, 1], 1)); // ok
    let tail = conv3d(x, w, None, PaddedConvOptions::asymmetric([2, 2, 2], [1, 1, 1], [1, 2, 2], [1, 1, 1], 1)); // expect: conv3d-asymmetric-padding
    vec![same, even, equal, chosen, tail]
}

pub fn look_alikes(x: Tensor<4>, w: Tensor<4>) -> Tensor<4> {
    let _n = local::conv3d(local::PaddedConvOptions::asymmetric([0, 0, 0], [1, 1, 1])); // ok
    conv2d(x, w, None, PaddedConvOptions::asymmetric([1, 1], [0, 0], [1, 1], [1, 1], 1)) // ok
}

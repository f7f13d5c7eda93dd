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

// Lines added with the rule file.
pub fn more(x: Tensor<5>, w: Tensor<5>, device: &Device) -> Vec<Tensor<5>> {
    let tf_same = PaddedConvOptions::asymmetric([1, 1, 1], [0, 1, 1], [1, 1, 1], [1, 1, 1], 1);
    let a = burn::tensor::module::conv3d(x.clone(), w.clone(), None, tf_same); // expect: conv3d-asymmetric-padding
    // padding_end written as Some(..) is asymmetric to conv3d even when it equals the start
    let literal = PaddedConvOptions { options: ConvOptions::new([1, 1, 1], [1, 1, 1], [1, 1, 1], 1), padding_end: Some([1, 1, 1]) };
    let b = conv3d(x.clone(), w.clone(), None, literal); // expect: conv3d-asymmetric-padding
    let none = PaddedConvOptions { options: ConvOptions::new([1, 1, 1], [1, 1, 1], [1, 1, 1], 1), padding_end: None };
    let c = conv3d(x.clone(), w.clone(), None, none); // ok
    let d = conv3d(x.clone(), w.clone(), None, PaddedConvOptions::from(ConvOptions::new([2, 2, 2], [0, 0, 0], [1, 1, 1], 1))); // ok
    // the Conv3d module passes symmetric ConvOptions
    let conv = burn::nn::conv::Conv3dConfig::new([4, 8], [3, 3, 3])
        .with_padding(burn::nn::PaddingConfig3d::Explicit(1, 0, 1))
        .init(device);
    let e = conv.forward(x); // ok
    vec![a, b, c, d, e]
}

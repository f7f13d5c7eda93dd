// Video model: functional 3-D convolutions with hand-made padding.
use burn::prelude::*;
use burn::tensor::module::{conv2d, conv3d};
use burn::tensor::ops::{ConvOptions, PaddedConvOptions};

// More of this panic: the corpus example tests/corpus/panics/conv3d-asymmetric-padding/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
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

// Padding images before a convolution.
use burn::prelude::*;
use burn::tensor::ops::PadMode;

mod local {
    pub struct Canvas(pub Vec<f32>);

    impl Canvas {
        pub fn pad(self, pairs: [(usize, usize); 3], _mode: f32) -> usize {
            self.0.len() + pairs.len()
        }
    }
}

pub fn border(img: Tensor<2>) -> Tensor<2> {
    img.pad([(0, 0), (1, 1), (1, 1)], PadMode::Constant(0.0)) // expect: pad-too-many-pairs
}

pub fn batch_border(device: &Device) -> Vec<Tensor<4>> {
    let x = Tensor::<4>::zeros([8, 3, 32, 32], device);
    let a = x.clone().pad([(2, 2), (2, 2)], PadMode::Reflect); // ok
    let b = x.clone().pad([(0, 0), (0, 0), (1, 1), (1, 1)], PadMode::Constant(0.0)); // ok
    let c = x.clone().pad((1, 1, 1, 1), PadMode::Edge); // ok
    let d = x.clone().pad([(0, 0), (0, 0), (0, 0), (1, 1), (1, 1)], PadMode::Edge); // expect: pad-too-many-pairs
    vec![a, b, c, d]
}

pub fn configured(x: Tensor<2>, pairs: Vec<(usize, usize)>) -> Tensor<2> {
    x.pad(pairs, PadMode::Constant(0.0)) // ok
}

pub fn look_alikes() -> usize {
    local::Canvas(vec![0.0]).pad([(1, 1), (1, 1), (1, 1)], 0.0) // ok
}

// Lines added with the rule file.
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

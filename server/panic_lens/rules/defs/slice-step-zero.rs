// Strided reads over signals and feature maps.
use burn::prelude::*;
use burn::tensor::Slice;

const STRIDE: isize = 0;

mod local {
    /// A project type that shares burn's name: its constructors never panic.
    pub struct Slice(pub isize, pub isize);

    impl Slice {
        pub fn with_step(step: isize, _end: Option<isize>, _unused: isize) -> Self {
            Slice(step, 0)
        }
    }
}

pub fn decimate(x: Tensor<1>) -> Tensor<1> {
    let _a = x.clone().slice(s![..;2]); // ok
    let _b = x.clone().slice(s![..;STRIDE]); // expect: slice-step-zero
    x.slice(s![0..8;0]) // expect: slice-step-zero
}

pub fn rows(x: Tensor<2>, step: isize) -> Tensor<2> {
    let _a = x.clone().slice(s![0..4;-1, ..]); // ok
    let _b = x.clone().slice(s![.., 0..8;step]); // ok: the step is not known
    x.slice(s![.., 0..8;0]) // expect: slice-step-zero
}

pub fn specs(stride: isize) -> Vec<Slice> {
    vec![
        Slice::new(0, Some(4), 0), // expect: slice-step-zero
        Slice::with_step(0, None, 0), // expect: slice-step-zero
        Slice::from_range_stepped(0..4, 0), // expect: slice-step-zero
        Slice::new(0, Some(4), 1), // ok
        Slice::with_step(0, None, stride), // ok
    ]
}

pub fn look_alikes() -> isize {
    let s = local::Slice::with_step(0, Some(4), 0); // ok
    s.0
}

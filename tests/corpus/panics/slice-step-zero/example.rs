// Strided reads over a signal.
use burn::prelude::*;
use burn::tensor::Slice;

mod local {
    pub struct Slice {
        pub step: isize,
    }

    impl Slice {
        pub fn new(_start: isize, _end: Option<isize>, step: isize) -> Self {
            Slice { step }
        }
    }
}

pub fn decimate(x: Tensor<1>) -> Tensor<1> {
    x.slice(s![..;0]) // expect: slice-step-zero
}

pub fn every_other(x: Tensor<1>) -> Tensor<1> {
    x.slice(s![..;2]) // ok
}

pub fn reversed(x: Tensor<2>) -> Tensor<2> {
    let _rows = x.clone().slice(s![0..4;-1, ..]); // ok
    x.slice(s![.., 0..8;0]) // expect: slice-step-zero
}

pub fn specs(stride: isize) -> Vec<Slice> {
    vec![
        Slice::new(0, Some(4), 0), // expect: slice-step-zero
        Slice::with_step(0, None, 0), // expect: slice-step-zero
        Slice::new(0, Some(4), 1), // ok
        Slice::with_step(0, None, stride), // ok
    ]
}

pub fn look_alikes() -> isize {
    let s = local::Slice::new(0, Some(4), 0); // ok
    let v: Vec<i32> = (0..10).step_by(2).collect(); // ok
    s.step + v.len() as isize
}

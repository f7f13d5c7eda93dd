// Cropping fixed windows out of audio features.
use burn::prelude::*;

const FRAMES: usize = 100;

mod local {
    pub struct Window;

    impl Window {
        pub fn narrow(&self, _dim: usize, start: usize, length: usize) -> usize {
            start + length
        }
    }
}

pub fn crops(device: &Device) -> Vec<Tensor<2>> {
    let feats = Tensor::<2>::zeros([80, FRAMES], device);
    let head = feats.clone().narrow(1, 0, 50); // ok
    let tail = feats.clone().narrow(1, 60, 50); // expect: narrow-out-of-range
    let last = feats.clone().narrow(1, FRAMES - 10, 10); // ok
    let past = feats.clone().narrow(0, 80, 1); // expect: narrow-out-of-range
    vec![head, tail, last, past]
}

pub fn rows(device: &Device) -> Tensor<2> {
    let x = Tensor::<2>::ones([4, 3], device);
    x.narrow(-1, 1, 3) // expect: narrow-out-of-range
}

pub fn window(x: Tensor<2>, start: usize, len: usize) -> Tensor<2> {
    x.narrow(1, start, len) // ok
}

pub fn look_alikes() -> usize {
    let w = local::Window;
    let n = w.narrow(1, 60, 50); // ok
    let s = "abcdef";
    let _sub = &s[1..4]; // ok
    n
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([8, 16], device);
    let a = x.clone().narrow(1, 8, 8); // ok
    let b = x.clone().narrow(1, 8, 9); // expect: narrow-out-of-range
    let c = x.clone().narrow(-2, 7, 2); // expect: narrow-out-of-range
    let d = x.narrow(-2, 0, 8); // ok
    vec![a, b, c, d]
}

pub fn empty(device: &Device, n: usize) -> Vec<Tensor<2>> {
    let feats = Tensor::<2>::zeros([80, FRAMES], device);
    let none = feats.clone().narrow(1, 0, FRAMES - 100); // expect: narrow-out-of-range
    let at_end = feats.clone().narrow(1, FRAMES, 1); // expect: narrow-out-of-range
    let runtime = feats.clone().narrow(1, 0, n); // ok
    vec![none, at_end, runtime]
}

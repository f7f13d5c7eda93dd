// Cropping patches out of single images and batches.
use burn::prelude::*;

mod local {
    pub struct Image(pub Vec<u8>);

    impl Image {
        pub fn slice(&self, ranges: [std::ops::Range<usize>; 3]) -> &[u8] {
            &self.0[ranges[0].clone()]
        }
    }
}

pub fn patch(device: &Device) -> Tensor<2> {
    let img = Tensor::<2>::zeros([28, 28], device);
    let _a = img.clone().slice([0..14, 0..14]); // ok
    let _b = img.clone().slice(s![.., 0..7]); // ok
    let _c = img.clone().slice([0..14, 0..14, 0..1]); // expect: slice-too-many-ranges
    img.slice(s![0..14, 0..14, 0]) // expect: slice-too-many-ranges
}

pub fn batch_patch(device: &Device) -> Tensor<3> {
    let batch = Tensor::<3>::zeros([8, 28, 28], device);
    let _big = batch.clone().slice([0..8, 0..100, 0..100]); // ok
    batch.slice(s![.., 0..14, 0..14]) // ok
}

pub fn fill(device: &Device) -> Tensor<1> {
    let v = Tensor::<1>::zeros([10], device);
    v.slice_fill(s![0..2, 0..2], 1.0) // expect: slice-too-many-ranges
}

pub fn crop(x: Tensor<2>, rows: std::ops::Range<usize>) -> Tensor<2> {
    x.slice([rows]) // ok
}

pub fn look_alikes() -> usize {
    let img = local::Image(vec![0; 10]);
    let part = img.slice([0..2, 0..2, 0..1]); // ok
    let v = [1, 2, 3, 4];
    let _s = &v[0..2]; // ok
    part.len()
}

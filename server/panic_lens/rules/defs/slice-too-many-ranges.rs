// Crops of images and feature maps.
use burn::prelude::*;

const CHANNELS: usize = 3;

mod local {
    pub struct Grid(pub Vec<Vec<f32>>);

    impl Grid {
        pub fn slice(self, _ranges: [std::ops::Range<usize>; 3]) -> Self {
            self
        }
    }
}

pub fn crop(img: Tensor<2>, device: &Device) -> Tensor<2> {
    let _a = img.clone().slice([0..14, 0..14]); // ok
    let _b = img.clone().slice([0..14, 0..14, 0..1]); // expect: slice-too-many-ranges
    let _c = img.clone().slice(s![.., 0..7]); // ok
    let _d = img.clone().slice(s![0..14, 0..14, 0]); // expect: slice-too-many-ranges
    let ones = Tensor::<2>::ones([4, 4], device);
    let _e = ones.slice_fill([0..2, 0..2, 0..CHANNELS], 1.0); // expect: slice-too-many-ranges
    img.slice(0..2) // ok: one range
}

pub fn batches(batch: Tensor<3>, rows: std::ops::Range<usize>, n: usize) -> Tensor<3> {
    let _a = batch.clone().slice([0..8, 0..100, 0..100]); // ok
    let _b = batch.clone().slice([rows.clone(), 0..n, 0..n, 0..1]); // expect: slice-too-many-ranges
    batch.slice([rows]) // ok
}

pub fn unknown_rank<B: Backend, const D: usize>(x: Tensor<B, D>) -> Tensor<B, D> {
    x.slice([0..1, 0..1, 0..1]) // ok: the rank is not known
}

pub fn look_alikes(grid: local::Grid) -> local::Grid {
    grid.slice([0..2, 0..2, 0..1]) // ok
}

// Flattening feature maps before a linear head.
use burn::prelude::*;

const BATCH: usize = 8;
const FEATURES: usize = 64;

mod local {
    pub struct Grid(pub Vec<f32>);

    impl Grid {
        pub fn reshape(self, _dims: [usize; 2]) -> Self {
            self
        }
    }
}

pub fn head(device: &Device) -> Tensor<2> {
    let maps = Tensor::<4>::zeros([BATCH, 16, 2, 2], device);
    let _flat = maps.clone().reshape([BATCH, FEATURES]); // ok
    let _wrong = maps.clone().reshape([BATCH, 32]); // expect: reshape-incompatible-shape
    let _inferred = maps.clone().reshape([BATCH, -1]); // ok: -1 is inferred
    let _kept = maps.clone().reshape([0, 64]); // ok: 0 keeps the batch
    let _kept_wrong = maps.clone().reshape([0, 16]); // expect: reshape-incompatible-shape
    maps.reshape(Shape::new([4, 4])) // expect: reshape-incompatible-shape
}

pub fn runtime(x: Tensor<2>, rows: usize, cols: usize, device: &Device) -> Tensor<2> {
    let y = Tensor::<2>::ones([2, 3], device);
    let _a = y.reshape([rows, cols]); // ok: the target is not known
    x.reshape([4, 2]) // ok: the source shape is not known
}

pub fn ints(device: &Device) -> Tensor<2, Int> {
    let ids = Tensor::<1, Int>::arange(0..6, device);
    ids.reshape([2, 2]) // expect: reshape-incompatible-shape
}

pub fn look_alikes(grid: local::Grid) -> local::Grid {
    grid.reshape([4, 2]) // ok
}

pub fn inferred(x: Tensor<2>, device: &Device) -> Tensor<2> {
    let square = Tensor::<2>::zeros([4, 4], device);
    let _thirds = square.clone().reshape([-1, 3]); // expect: reshape-incompatible-shape
    let _halves = square.clone().reshape([-1, 8]); // ok: 16 = 2 * 8
    let _kept = square.clone().reshape([0, -1]); // ok: [4, 4]
    let _kept_thirds = square.clone().reshape::<3, _>([0, -1, 3]); // expect: reshape-incompatible-shape
    let _twice = square.clone().reshape([-1, -1]); // expect: reshape-incompatible-shape
    let _below = square.clone().reshape([-2, 8]); // expect: reshape-incompatible-shape
    let _unknown = x.clone().reshape([-1, 3]); // ok: the source shape is not known
    let _unknown_twice = x.clone().reshape([-1, -1]); // expect: reshape-incompatible-shape
    square.reshape([-1, 16]) // ok: [1, 16]
}

// Flattening feature maps before a classifier head.
use burn::prelude::*;

const BATCH: usize = 8;

mod local {
    // A project helper with the same method name.
    pub struct Grid {
        pub cells: Vec<f32>,
    }

    impl Grid {
        pub fn reshape(self, dims: [usize; 2]) -> Vec<Vec<f32>> {
            self.cells.chunks(dims[1]).map(|c| c.to_vec()).collect()
        }
    }
}

pub fn head_input(device: &Device) -> Tensor<2> {
    let maps = Tensor::<4>::zeros([BATCH, 16, 7, 7], device);
    maps.reshape([BATCH, 16 * 7]) // expect: reshape-incompatible-shape
}

pub fn tiles(device: &Device) {
    let x = Tensor::<2>::zeros([2, 3], device);
    let _bad = x.clone().reshape([4, 2]); // expect: reshape-incompatible-shape
    let _flat = x.clone().reshape([6]); // ok
    let _inferred = x.clone().reshape([3, -1]); // ok
    let _keep = x.clone().reshape([0, 3]); // ok
    let _cols: Tensor<2> = x.reshape(Shape::new([3, 3])); // expect: reshape-incompatible-shape
}

pub fn dynamic(x: Tensor<2>, rows: usize, cols: usize) -> Tensor<2> {
    x.reshape([rows, cols]) // ok
}

pub fn from_data(device: &Device) -> Tensor<2, Int> {
    let ids = Tensor::<1, Int>::from_ints([1, 2, 3, 4, 5], device);
    ids.reshape([2, 2]) // expect: reshape-incompatible-shape
}

pub fn look_alikes() -> usize {
    let grid = local::Grid { cells: vec![0.0; 6] };
    let rows = grid.reshape([4, 2]); // ok
    let v: Vec<usize> = vec![1, 2, 3];
    let _shape = Shape::new([4, 2]); // ok
    rows.len() + v.len()
}

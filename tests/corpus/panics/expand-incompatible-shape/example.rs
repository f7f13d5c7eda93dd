// Broadcasting masks and biases.
use burn::prelude::*;

const HEADS: usize = 8;

mod local {
    pub struct Grid(pub Vec<usize>);

    impl Grid {
        pub fn expand(self, shape: [usize; 2]) -> Self {
            Grid(shape.to_vec())
        }
    }
}

pub fn mask(device: &Device) -> Tensor<4> {
    let m = Tensor::<2>::ones([2, 16], device);
    m.expand([2, HEADS, 16, 16]) // expect: expand-incompatible-shape
}

pub fn mask_ok(device: &Device) -> Tensor<4> {
    let m = Tensor::<4>::ones([2, 1, 1, 16], device);
    m.expand([2, HEADS, 16, 16]) // ok
}

pub fn bias(device: &Device) -> Tensor<2> {
    let b = Tensor::<2>::ones([1, 3], device);
    let _rows = b.clone().expand([4, 3]); // ok
    let _keep = b.clone().expand([4, -1]); // ok
    let w = Tensor::<2>::ones([2, 3], device);
    let _w = w.expand([2, 4]); // expect: expand-incompatible-shape
    b.expand([5, 4]) // expect: expand-incompatible-shape
}

pub fn to(x: Tensor<2>, rows: usize, cols: usize) -> Tensor<2> {
    x.expand([rows, cols]) // ok
}

pub fn look_alikes() -> usize {
    let g = local::Grid(vec![2, 3]).expand([2, 4]); // ok
    let mut v = vec![1, 2];
    v.extend([3, 4]); // ok
    g.0.len() + v.len()
}

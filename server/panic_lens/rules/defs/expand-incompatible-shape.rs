// Broadcasting masks and biases to a batch.
use burn::prelude::*;

const HEADS: usize = 8;

mod local {
    pub struct Grid(pub Vec<usize>);

    impl Grid {
        pub fn expand(self, _to: [usize; 2]) -> Self {
            self
        }
    }
}

pub fn masks(device: &Device) -> Tensor<4> {
    let m = Tensor::<2>::ones([16, 16], device);
    let _fits = m.clone().expand([2, HEADS, 16, 16]); // ok
    let _wide = m.clone().expand([2, HEADS, 16, 32]); // expect: expand-incompatible-shape
    let _kept = m.clone().expand([2, HEADS, -1, 16]); // ok: -1 keeps the size
    m.expand([2, HEADS, 4, 16]) // expect: expand-incompatible-shape
}

pub fn bias(device: &Device, rows: usize) -> Tensor<2> {
    let b = Tensor::<2>::zeros([1, 3], device);
    let _rows = b.clone().expand([4, 3]); // ok: a 1 broadcasts
    let _unknown = b.clone().expand([rows, 3]); // ok: a target size is not known
    b.expand([4, 5]) // expect: expand-incompatible-shape
}

pub fn runtime(x: Tensor<2>) -> Tensor<2> {
    x.expand([2, 4]) // ok: the source shape is not known
}

pub fn look_alikes() -> local::Grid {
    local::Grid(vec![2, 3]).expand([2, 4]) // ok
}

pub fn partly_known(device: &Device, x: Tensor<3>) -> Tensor<3> {
    let [batch, _, _] = x.dims();
    let t = Tensor::<3>::zeros([batch, 3, 4], device);
    let _rows = t.clone().expand([2, 3, 4]); // ok: the batch may be 1 or 2
    let _other = t.clone().expand([2, 5, 4]); // expect: expand-incompatible-shape
    let _kept = t.clone().expand([-1, 3, 4]); // ok
    let _wider = t.clone().expand([2, batch, 3, 4]); // ok: a new leading dim takes any size
    t.expand([3, 3, 8]) // expect: expand-incompatible-shape
}

// Data augmentation: mirrored copies of images and sequences.
use burn::prelude::*;

mod local {
    pub struct Grid(pub Vec<Vec<u8>>);

    impl Grid {
        pub fn flip(mut self, axes: [usize; 2]) -> Self {
            if axes[0] == axes[1] {
                self.0.reverse();
            }
            self
        }
    }
}

pub fn mirror(img: Tensor<2>) -> Tensor<2> {
    img.flip([1, -1]) // expect: flip-duplicate-axes
}

pub fn augment(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([4, 32, 32], device);
    let h = x.clone().flip([2]); // ok
    let hv = x.clone().flip([1, 2]); // ok
    let twice = x.clone().flip([2, 2]); // expect: flip-duplicate-axes
    let all = x.clone().flip([0, -2, 2]); // ok
    vec![h, hv, twice, all]
}

pub fn configured(x: Tensor<3>, a: usize, b: usize) -> Tensor<3> {
    x.flip([a, b]) // ok
}

pub fn look_alikes(x: Tensor<2>) -> Tensor<2> {
    let _g = local::Grid(vec![vec![1, 2]]).flip([1, 1]); // ok
    x.permute([1, 0]) // ok
}

// Lines added with the rule file.
pub fn more(x: Tensor<3>, device: &Device) -> Tensor<3> {
    let _neg = x.clone().flip([-1, 2]); // expect: flip-duplicate-axes
    let _first = x.clone().flip([-3, 0]); // expect: flip-duplicate-axes
    let _distinct = x.clone().flip([-1, -2, -3]); // ok
    // Axis 3 is outside the rank: the dim-index check panics first.
    let _out = x.clone().flip([3, 3]); // ok
    let _empty = x.clone().flip::<0>([]); // ok
    let ints = Tensor::<2, Int>::zeros([2, 2], device);
    let _i = Tensor::flip(ints, [0, 0]); // expect: flip-duplicate-axes
    x.flip([0, 1, 2]) // ok
}

pub fn generic<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    x.flip([0, 0]) // ok (the rank is not known)
}

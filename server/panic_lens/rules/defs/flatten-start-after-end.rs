// Flattening convolution features for a linear head.
use burn::prelude::*;

mod local {
    pub struct Nested(pub Vec<Vec<u8>>);

    impl Nested {
        pub fn flatten(self, _start: usize, _end: usize) -> Vec<u8> {
            self.0.into_iter().flatten().collect()
        }
    }
}

pub fn head(x: Tensor<4>) -> Tensor<2> {
    x.flatten::<2>(3, 1) // expect: flatten-start-after-end
}

pub fn head_ok(x: Tensor<4>) -> Tensor<2> {
    x.flatten::<2>(1, 3) // ok
}

pub fn tokens(device: &Device) -> Tensor<2> {
    let x = Tensor::<3>::zeros([2, 3, 4], device);
    let _neg = x.clone().flatten::<2>(-1, 1); // expect: flatten-start-after-end
    let _tail = x.clone().flatten::<2>(1, -1); // ok
    x.flatten::<2>(0, 1) // ok
}

pub fn generic(x: Tensor<4>, start: usize, end: usize) -> Tensor<2> {
    x.flatten::<2>(start, end) // ok
}

pub fn look_alikes() -> usize {
    let n = local::Nested(vec![vec![1], vec![2, 3]]).flatten(3, 1); // ok
    let it: Vec<u8> = vec![vec![1u8], vec![2]].into_iter().flatten().collect(); // ok
    n.len() + it.len()
}

// Lines added with the rule file.
pub fn more(device: &Device, x: Tensor<4>) -> Tensor<2> {
    let y = Tensor::<4>::zeros([2, 3, 4, 5], device);
    let _a = y.clone().flatten::<2>(-1, -3); // expect: flatten-start-after-end
    let _b = y.clone().flatten::<3>(-2, -1); // ok
    let _c = x.flatten::<3>(2, 2); // ok
    y.flatten::<2>(2, 0) // expect: flatten-start-after-end
}

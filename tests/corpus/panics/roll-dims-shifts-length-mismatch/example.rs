// Circular shifts for a cellular automaton and a jitter augmentation.
use burn::prelude::*;

mod local {
    pub struct Ring(pub Vec<f32>);

    impl Ring {
        pub fn roll(mut self, shifts: &[i64], _dims: &[usize]) -> Self {
            let n = shifts.len() % self.0.len().max(1);
            self.0.rotate_left(n);
            self
        }
    }
}

pub fn neighbours(board: Tensor<2>) -> Vec<Tensor<2>> {
    vec![
        board.clone().roll(&[1, 1], &[0, 1]), // ok
        board.clone().roll(&[1], &[0, 1]), // expect: roll-dims-shifts-length-mismatch
        board.clone().roll_dim(-1, 0), // ok
        board.roll(&[1, -1, 2], &[0, 1]), // expect: roll-dims-shifts-length-mismatch
    ]
}

pub fn jitter(x: Tensor<3>, shifts: &[i64], dims: &[usize]) -> Tensor<3> {
    x.roll(shifts, dims) // ok
}

pub fn look_alikes(x: Tensor<1>) -> Tensor<1> {
    let _r = local::Ring(vec![1.0, 2.0]).roll(&[1], &[0, 1]); // ok
    x.roll(&[2], &[0]) // ok
}

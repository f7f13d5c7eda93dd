//! Trains the decoder (and so the backbone) with an autodiff backend.

use burn::backend::{Autodiff, NdArray};

type Train = Autodiff<NdArray>;

fn main() {
    let device = Default::default();
    let x = burn::tensor::Tensor::<Train, 4>::ones([1, 3, 8, 8], &device).require_grad();
    let y = decoder::decode(x.clone());
    let _grads = y.sum().backward();
}

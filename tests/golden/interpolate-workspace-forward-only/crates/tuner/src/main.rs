//! Trains a model of its own; the backbone is not one of its dependencies.

use burn::backend::{Autodiff, Wgpu};

fn main() {
    let x = burn::tensor::Tensor::<Autodiff<Wgpu>, 2>::ones([2, 2], &Default::default());
    let _grads = x.require_grad().sum().backward();
}

use burn::tensor::Tensor;
fn f(x: Tensor<3>) { let _ = x.swap_dims(5, 0); }

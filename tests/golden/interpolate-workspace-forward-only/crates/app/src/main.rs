//! Inference on wgpu: depends on the backbone, trains nothing.

fn main() {
    let device = Default::default();
    let x = burn::tensor::Tensor::<burn::backend::Wgpu, 4>::ones([1, 3, 64, 64], &device);
    let _y = backbone::pyramid(x);
}

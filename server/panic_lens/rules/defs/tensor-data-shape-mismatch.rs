// Building tensors from raw buffers.
use burn::prelude::*;
use burn::tensor::TensorData;

const H: usize = 28;
const W: usize = 28;

mod local {
    pub struct TensorData(pub Vec<f32>);

    impl TensorData {
        pub fn new(values: Vec<f32>, _shape: [usize; 2]) -> Self {
            TensorData(values)
        }
    }
}

pub fn small(device: &Device) -> Tensor<2> {
    let bad = TensorData::new(vec![1.0f32, 2.0, 3.0], [2, 2]); // expect: tensor-data-shape-mismatch
    let good = TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2]); // ok
    let _t = Tensor::<2>::from_data(bad, device);
    Tensor::<2>::from_data(good, device)
}

pub fn image(device: &Device, n: usize) -> Tensor<3> {
    let gray = vec![0.0f32; H * W];
    let _rgb = TensorData::new(gray.clone(), [H, W, 3]); // expect: tensor-data-shape-mismatch
    let _ok = TensorData::new(vec![0.0f32; H * W * 3], [H, W, 3]); // ok
    let _unknown = TensorData::new(vec![0.0f32; n], [H, W, 3]); // ok: n is not known
    Tensor::from_data(TensorData::new(gray, [1, H, W]), device) // ok
}

pub fn runtime(values: Vec<i64>, batch: usize, seq: usize) -> TensorData {
    TensorData::new(values, [batch, seq]) // ok
}

pub fn look_alikes() -> local::TensorData {
    local::TensorData::new(vec![1.0, 2.0, 3.0], [2, 2]) // ok
}

// Building tensors from flat buffers.
use burn::prelude::*;

const H: usize = 28;
const W: usize = 28;

mod local {
    pub struct TensorData {
        pub len: usize,
    }

    impl TensorData {
        pub fn new(values: Vec<f32>, _shape: [usize; 2]) -> Self {
            TensorData { len: values.len() }
        }
    }
}

pub fn small(device: &Device) -> Tensor<2> {
    let bad = TensorData::new(vec![1.0f32, 2.0, 3.0], [2, 2]); // expect: tensor-data-shape-mismatch
    let good = TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2]); // ok
    let _t = Tensor::<2>::from_data(bad, device);
    Tensor::<2>::from_data(good, device)
}

pub fn image(device: &Device) -> Tensor<3> {
    let gray = vec![0.0f32; H * W];
    let data = TensorData::new(gray, [H, W, 3]); // expect: tensor-data-shape-mismatch
    Tensor::from_data(data, device)
}

pub fn literal(device: &Device) -> Tensor<2> {
    Tensor::<2>::from_data([[1.0, 2.0], [3.0, 4.0]], device) // ok
}

pub fn tokens(ids: Vec<i64>, batch: usize, seq: usize, device: &Device) -> Tensor<2, Int> {
    Tensor::from_data(TensorData::new(ids, [batch, seq]), device) // ok
}

pub fn look_alikes() -> usize {
    let d = local::TensorData::new(vec![1.0, 2.0, 3.0], [2, 2]); // ok
    let v: Vec<f32> = Vec::with_capacity(4); // ok
    d.len + v.len()
}

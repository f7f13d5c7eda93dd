//! `.to_device` everywhere, none of it a move between two capture devices of an unsigned tensor.

use burn::module::Module;
use burn::tensor::{Device, Int, Tensor, TensorData};

mod local;

pub fn module_move<M: Module>(model: M, device: &Device) -> M {
    model.to_device(device)
}

pub fn gpu_move(data: TensorData) {
    let gpu = Device::default();
    let other = Device::default();
    let t = Tensor::<1, Int>::from_data(data, (&gpu, burn::tensor::DType::U32));
    let _ = t.to_device(&other);
}

pub fn runtime_dtype(data: TensorData, dtype: burn::tensor::DType) {
    let a = Device::capture();
    let b = Device::capture();
    let t = Tensor::<1, Int>::from_data(data, (&a, dtype));
    let _ = t.to_device(&b);
}

pub fn reassigned_device(data: TensorData, flag: bool) {
    let a = Device::capture();
    let mut b = Device::capture();
    if flag {
        b = a.clone();
    }
    let t = Tensor::<1, Int>::from_data(data, (&a, burn::tensor::DType::U32));
    let _ = t.to_device(&b);
}

//! The 0.21 generic API: Tensor<B, D, K> with a backend parameter.

use burn::tensor::{DType, Device, Int, Tensor, TensorData};

pub fn old_api<B: burn::tensor::backend::Backend>(data: TensorData) {
    let first = Device::capture();
    let second = Device::capture();
    let t = Tensor::<B, 1, Int>::from_data(data, (&first, DType::U64));
    t.to_device(&second); //~ router-unsupported-dtype error
}

pub fn devices_from_parameters(t: Tensor<1, Int>, a: &Device, b: &Device) {
    // Unknown devices and an unknown dtype: nothing to say.
    let _ = t.to_device(b);
    let _ = a;
}

//! Token ids move between two capture devices.

use burn::prelude::*;
use burn::tensor::DType;

pub fn export_tokens(tokens: Vec<u32>) {
    let encoder = Device::capture();
    let decoder = Device::capture();
    let n = tokens.len();
    let ids = Tensor::<1, Int>::from_data(TensorData::new(tokens, [n]), (&encoder, DType::U32));
    let ids = ids.to_device(&decoder);
    println!("{:?}", ids.dims());
}

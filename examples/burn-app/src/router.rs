//! Exporting token pipelines as capture graphs: tensors move between two capture devices.

use burn::prelude::*;
use burn::tensor::DType;
use burn_router::{RouterChannel, RouterTensor};

/// Vocabulary ids are stored as u32; positions as i64.
pub fn export_token_graphs(tokens: Vec<u32>, positions: Vec<i64>) {
    let encoder_graph = Device::capture();
    let decoder_graph = Device::capture();
    let n = tokens.len();

    // Unsigned ints have no branch in RouterChannel::change_client_backend: unimplemented!().
    let token_ids =
        Tensor::<1, Int>::from_data(TensorData::new(tokens, [n]), (&encoder_graph, DType::U32));
    let token_ids = token_ids.to_device(&decoder_graph);

    // Signed ints move fine between capture devices.
    let positions =
        Tensor::<1, Int>::from_data(TensorData::new(positions, [n]), (&encoder_graph, DType::I64));
    let positions = positions.to_device(&decoder_graph);

    // Moving to the default device is another path entirely.
    let on_host = token_ids.clone().to_device(&Device::default());
    println!("{} tokens, {} positions, {:?}", n, positions.dims()[0], on_host.dims());
}

/// A generic helper some router code keeps around: the default body panics on U8..U64 and
/// quantized tensors, whatever the channel.
pub fn migrate<C: RouterChannel>(
    tensor: RouterTensor<C::Client>,
    device: &C::Device,
) -> RouterTensor<C::Client> {
    C::change_client_backend(tensor, device)
}

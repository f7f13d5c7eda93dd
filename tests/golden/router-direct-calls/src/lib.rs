//! A third-party router channel, and code that calls change_client_backend directly.

use burn_router::{RouterChannel, RouterTensor};

mod remote;

#[derive(Clone)]
pub struct LocalChannel;

impl RouterChannel for LocalChannel { //~ router-unsupported-dtype information
    type Device = LocalDevice;
    type Bridge = LocalBridge;
    type Client = LocalClient;

    fn name(_device: &Self::Device) -> String {
        "local".into()
    }

    fn init_client(device: &Self::Device) -> Self::Client {
        LocalClient::new(device)
    }

    fn get_tensor_handle(tensor: &TensorIr, client: &Self::Client) -> Handle {
        client.handle(tensor)
    }

    fn register_tensor(client: &Self::Client, handle: Handle, shape: Shape, dtype: DType) -> RouterTensor<Self::Client> {
        client.register(handle, shape, dtype)
    }
}

impl LocalChannel {
    pub fn hop(t: RouterTensor<LocalClient>, d: &LocalDevice) -> RouterTensor<LocalClient> {
        LocalChannel::change_client_backend(t, d) //~ router-unsupported-dtype warning
    }
}

pub fn generic<C: RouterChannel>(t: RouterTensor<C::Client>, d: &C::Device) -> RouterTensor<C::Client> {
    C::change_client_backend(t, d) //~ router-unsupported-dtype warning
}

pub fn where_clause<C>(t: RouterTensor<C::Client>, d: &C::Device) -> RouterTensor<C::Client>
where
    C: Clone + burn_router::RouterChannel,
{
    <C as RouterChannel>::change_client_backend(t, d) //~ router-unsupported-dtype warning
}

pub fn not_a_channel<C: Mover>(t: Thing, d: &Dev) -> Thing {
    C::change_client_backend(t, d)
}

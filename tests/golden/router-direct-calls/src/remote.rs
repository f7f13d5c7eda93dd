//! A channel with its own change_client_backend: calls reach the override, not the default.

use burn_router::{RouterChannel, RouterTensor};

#[derive(Clone)]
pub struct Careful;

impl RouterChannel for Careful {
    type Device = D;
    type Bridge = Br;
    type Client = Cl;

    fn change_client_backend(tensor: RouterTensor<Cl>, device: &D) -> RouterTensor<Cl> {
        move_any_dtype(tensor, device)
    }

    fn hop(t: RouterTensor<Cl>, d: &D) -> RouterTensor<Cl> {
        Self::change_client_backend(t, d)
    }
}

pub fn concrete(t: RouterTensor<Cl>, d: &D) -> RouterTensor<Cl> {
    Careful::change_client_backend(t, d)
}

//! `crate::prelude` is burn's, but this module has its own AsyncPolicy.

use crate::prelude::Policy;

pub struct AsyncPolicy;

impl AsyncPolicy {
    pub fn new(_n: usize) -> Self {
        AsyncPolicy
    }

    pub fn load_record(self, _r: ()) -> Self {
        self
    }
}

pub fn local() {
    AsyncPolicy::new(1).load_record(());
}

pub fn unused<P: Policy>(_p: P) {}

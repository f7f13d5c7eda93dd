//! A local struct called AsyncPolicy shadows any glob import of burn's.

use burn::rl::*;

pub struct AsyncPolicy {
    size: usize,
}

impl AsyncPolicy {
    pub fn new(size: usize, _inner: ()) -> Self {
        Self { size }
    }

    pub fn load_record(self, _record: ()) -> Self {
        self
    }
}

pub fn local(record: ()) {
    let policy = AsyncPolicy::new(1, ());
    policy.load_record(record);
}

mod nested {
    pub fn elsewhere(policy: AsyncPolicy, record: ()) {
        policy.load_record(record);
    }
}

//! burn 0.21 (todo!() instead of unimplemented!()), a non-cubecl backend: still an error.

use burn::rl::{AsyncPolicy, Policy};

fn main() {
    let base = MyPolicy::default();
    let record = load();
    let policy = AsyncPolicy::new(8, base);
    let policy = policy.load_record(record); //~ async-policy-load-record error
    run(policy);
}

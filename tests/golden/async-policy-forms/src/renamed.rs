//! Aliases and other crate roots.

use burn::rl::AsyncPolicy as Batched;
use burn_rl::policy::AsyncPolicy as Direct;

type Served<P> = Batched<P>;

pub fn renamed<P: burn::rl::Policy>(base: P, record: Rec) {
    let policy = Batched::new(4, base);
    policy.load_record(record); //~ async-policy-load-record error
}

pub fn crate_root<P: burn::rl::Policy>(base: P, record: Rec) {
    Direct::new(4, base).load_record(record); //~ async-policy-load-record error
}

pub fn type_alias<P: burn::rl::Policy>(policy: Served<P>, record: Rec) {
    policy.load_record(record); //~ async-policy-load-record error
}

pub fn fully_qualified<P: burn::rl::Policy>(policy: ::burn::rl::policy::AsyncPolicy<P>, record: Rec) {
    policy.load_record(record); //~ async-policy-load-record error
}

pub fn in_body<P: burn::rl::Policy>(base: P, record: Rec) {
    use burn::rl::*;
    let policy = AsyncPolicy::new(4, base);
    let _ = policy.load_record(record); //~ async-policy-load-record error
}

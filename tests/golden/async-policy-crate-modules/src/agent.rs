use crate::prelude::*;

pub fn through_glob<P: Policy>(base: P, record: Rec) -> AsyncPolicy<P> {
    let policy = AsyncPolicy::new(4, base);
    policy.load_record(record) //~ async-policy-load-record error
}

pub fn through_super<P: Policy>(policy: super::prelude::Served<P>, record: Rec) {
    let _ = policy.load_record(record); //~ async-policy-load-record error
}

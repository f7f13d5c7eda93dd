//! Types named AsyncPolicy that are not burn's, and burn's other load_record methods.

use burn::module::Module;
use governor::AsyncPolicy;

mod local;

pub fn rate_limiter(record: Rec) {
    let policy = AsyncPolicy::new(10, Quota::per_second(3));
    policy.load_record(record);
}

pub fn module_record<B: Backend, M: Module<B>>(model: M, record: M::Record) -> M {
    model.load_record(record)
}

pub fn unknown_receiver(thing: impl Loader, record: Rec) {
    thing.load_record(record);
}

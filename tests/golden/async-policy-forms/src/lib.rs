//! Every form of burn-facts.md section 2 that panics, next to the safe patterns.
//! A comment that says p.load_record(record) is not code.

use burn::rl::{AsyncPolicy, Policy, PolicyState};

mod agent;
mod renamed;

pub fn wrap_then_load<P: Policy>(base: P, record: Rec) -> AsyncPolicy<P> {
    let policy = AsyncPolicy::new(16, base);
    let policy = policy.load_record(record); //~ async-policy-load-record error
    policy
}

pub fn chained<P: Policy>(base: P, record: Rec) -> AsyncPolicy<P> {
    AsyncPolicy::new(16, base).load_record(record) //~ async-policy-load-record error
}

pub fn typed_let<P: Policy>(record: Rec) {
    let policy: AsyncPolicy<P> = make_policy();
    let _loaded = policy.load_record(record);
    //~^ async-policy-load-record error
}

pub fn by_parameter<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    policy
        .clone()
        .load_record(record) //~ async-policy-load-record error
}

pub fn ufcs<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    Policy::load_record(policy, record) //~ async-policy-load-record error
}

pub fn qualified<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    <AsyncPolicy<P> as Policy>::load_record(policy, record) //~ async-policy-load-record error
}

pub fn inherent_path<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    AsyncPolicy::load_record(policy, record) //~ async-policy-load-record error
}

// ---- safe patterns: no findings below ----

pub fn preload<P: Policy>(base: P, record: Rec) -> AsyncPolicy<P> {
    let base = base.load_record(record);
    AsyncPolicy::new(16, base)
}

pub fn through_state<P: Policy>(mut policy: AsyncPolicy<P>, record: Rec) {
    policy.update(policy.state().load_record(record));
}

pub fn state_first<P: Policy>(policy: &AsyncPolicy<P>, record: Rec) -> P::PolicyState {
    let state = policy.state();
    state.load_record(record)
}

pub fn inner_policy<P: Policy>(inner: P, record: Rec) -> P {
    inner.load_record(record)
}

pub fn shadowed<P: Policy>(base: P, record: Rec) -> P {
    let policy = AsyncPolicy::new(16, base.clone());
    drop(policy);
    let policy = base;
    policy.load_record(record)
}

pub fn strings() -> &'static str {
    "AsyncPolicy::new(16, base).load_record(record) panics"
}

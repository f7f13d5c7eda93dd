// Examples of async-policy-load-record (from its golden crates; no Cargo.toml above, so the backend is unknown).
//! No Cargo.toml anywhere above: the AsyncPolicy rule does not depend on the crate context.

mod policies {
    pub use burn_rl::AsyncPolicy;
}

mod training {
    use super::policies::AsyncPolicy;
    use burn_rl::Policy;

    pub fn restore<P: Policy>(base: P, record: Rec) -> AsyncPolicy<P> {
        let wrapped = AsyncPolicy::new(32, base);
        wrapped.load_record(record) // expect: async-policy-load-record
    }

    pub fn fine<P: Policy>(base: P, record: Rec) -> AsyncPolicy<P> {
        AsyncPolicy::new(32, base.load_record(record)) // ok
    }
}

mod elsewhere {
    // No import of AsyncPolicy in this module: the name is not burn's here.
    pub fn unrelated(policy: AsyncPolicy, record: Rec) {
        policy.load_record(record); // ok
    }

    pub fn qualified<P: burn::rl::Policy>(policy: burn::rl::AsyncPolicy<P>, record: Rec) {
        <burn::rl::AsyncPolicy<P> as burn::rl::Policy>::load_record(policy, record); // expect: async-policy-load-record
    }
}

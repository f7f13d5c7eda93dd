//! Actors served through burn-rl's AsyncPolicy.

use burn::rl::{AsyncPolicy, Policy};

use crate::policy::{DqnPolicy, PolicyRecord};

const AUTOBATCH: usize = 16;

/// Restores the actors from a checkpoint: AsyncPolicy::load_record is unimplemented!().
pub fn resume_actors(policy: DqnPolicy, record: PolicyRecord) -> AsyncPolicy<DqnPolicy> {
    let actors = AsyncPolicy::new(AUTOBATCH, policy);
    actors.load_record(record)
}

/// The safe order: load on the inner policy, then wrap.
pub fn resume_actors_preloaded(policy: DqnPolicy, record: PolicyRecord) -> AsyncPolicy<DqnPolicy> {
    let policy = policy.load_record(record);
    AsyncPolicy::new(AUTOBATCH, policy)
}

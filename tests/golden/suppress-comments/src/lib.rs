//! `// panic-lens: allow(<rule-id>) <reason>` on the flagged line or the line above.

use burn::rl::{AsyncPolicy, Policy};

pub fn line_above<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    // panic-lens: allow(async-policy-load-record) never reached: guarded by a feature check
    policy.load_record(record)
}

pub fn same_line<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    policy.load_record(record) // panic-lens: allow(async-policy-load-record) test of the panic
}

pub fn block_comment<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    policy.load_record(record) /* panic-lens: allow(async-policy-load-record) expected panic */
}

pub fn without_reason<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    // panic-lens: allow(async-policy-load-record)
    policy.load_record(record)
    //~^^ panic-lens-suppression hint
}

pub fn two_rules_one_used<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    // panic-lens: allow(async-policy-load-record, ctc-target-capacity) both are checked upstream
    policy.load_record(record)
    //~^^ panic-lens-suppression hint
}

pub fn wrong_rule<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    // panic-lens: allow(router-unsupported-dtype) wrong rule id for this call
    policy.load_record(record) //~ async-policy-load-record error
    //~^^ panic-lens-suppression hint
}

pub fn too_far_above<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    // panic-lens: allow(async-policy-load-record) two lines above does not count

    policy.load_record(record) //~ async-policy-load-record error
    //~^^^ panic-lens-suppression hint
}

pub fn unknown_rule() {
    // panic-lens: allow(no-such-rule) a typo in the rule id
    //~^ panic-lens-suppression hint
}

pub fn in_a_string<P: Policy>(policy: AsyncPolicy<P>, record: Rec) -> AsyncPolicy<P> {
    let _s = "// panic-lens: allow(async-policy-load-record) inside a string";
    policy.load_record(record) //~ async-policy-load-record error
}

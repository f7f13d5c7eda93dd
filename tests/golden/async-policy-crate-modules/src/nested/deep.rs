use super::super::prelude::Policy;
use crate::prelude::Served as Batched;

pub fn deep<P: Policy>(policy: Batched<P>, record: Rec) -> Batched<P> {
    policy.load_record(record) //~ async-policy-load-record error
}

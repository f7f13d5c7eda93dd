//! A struct field typed AsyncPolicy, next to fields of other types.

use burn::module::Module;
use burn::optim::Optimizer;
use burn::rl::{AsyncPolicy, Policy};

pub struct Agent<P: Policy, M, O> {
    policy: AsyncPolicy<P>,
    inner: P,
    model: M,
    optimizer: O,
}

impl<P: Policy, M: Module<B>, O: Optimizer<M, B>> Agent<P, M, O> {
    pub fn restore(self, record: Rec, model_record: MR, optim_record: OR) -> Self {
        let policy = self.policy.load_record(record); //~ async-policy-load-record error
        let inner = self.inner.load_record(record);
        let model = self.model.load_record(model_record);
        let optimizer = self.optimizer.load_record(optim_record);
        Self { policy, inner, model, optimizer }
    }
}

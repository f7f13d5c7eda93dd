//! A DQN policy served to many actor threads through burn-rl's AsyncPolicy.

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::prelude::*;
use burn::rl::{AsyncPolicy, Policy, PolicyState};
use burn::store::ModuleRecord;

/// Actions are batched across this many actor threads before one forward pass.
const AUTOBATCH: usize = 16;

#[derive(Module, Debug)]
pub struct QNet {
    hidden: Linear,
    out: Linear,
}

#[derive(Clone)]
pub struct DqnState {
    net: QNet,
}

impl PolicyState for DqnState {
    type Record = ModuleRecord;

    fn into_record(self) -> Self::Record {
        self.net.into_record()
    }

    fn load_record(&self, record: Self::Record) -> Self {
        Self { net: self.net.clone().load_record(record) }
    }
}

#[derive(Clone)]
pub struct DqnPolicy {
    net: QNet,
}

impl DqnPolicy {
    pub fn new(device: &Device) -> Self {
        let hidden = LinearConfig::new(4, 128).init(device);
        let out = LinearConfig::new(128, 2).init(device);
        Self { net: QNet { hidden, out } }
    }
}

impl Policy for DqnPolicy {
    type Observation = Tensor<2>;
    type ActionDistribution = Tensor<2>;
    type Action = Tensor<2, Int>;
    type ActionContext = ();
    type PolicyState = DqnState;

    fn forward(&mut self, obs: Self::Observation) -> Self::ActionDistribution {
        self.net.out.forward(self.net.hidden.forward(obs).clamp_min(0.0))
    }

    fn action(&mut self, obs: Self::Observation, _deterministic: bool) -> (Self::Action, Vec<()>) {
        let q = self.forward(obs);
        let [n, _] = q.dims();
        (q.argmax(1), vec![(); n])
    }

    fn update(&mut self, update: Self::PolicyState) {
        self.net = update.net;
    }

    fn state(&self) -> Self::PolicyState {
        DqnState { net: self.net.clone() }
    }

    fn to_device(self, device: &Device) -> Self {
        Self { net: self.net.to_device(device) }
    }

    fn load_record(self, record: ModuleRecord) -> Self {
        // Our own policy: loading through its state is fine.
        Self { net: self.state().load_record(record).net }
    }
}

pub fn load_checkpoint(artifact_dir: &str) -> ModuleRecord {
    ModuleRecord::load(format!("{artifact_dir}/policy")).expect("a saved policy checkpoint")
}

/// Restores the actors from a checkpoint. AsyncPolicy::load_record is unimplemented!():
/// this panics the first time an agent is resumed.
pub fn resume_actors(policy: DqnPolicy, record: ModuleRecord) -> AsyncPolicy<DqnPolicy> {
    let actors = AsyncPolicy::new(AUTOBATCH, policy);
    actors.load_record(record)
}

/// The safe order: load the record on the inner policy, then wrap it.
pub fn resume_actors_preloaded(policy: DqnPolicy, record: ModuleRecord) -> AsyncPolicy<DqnPolicy> {
    let policy = policy.load_record(record);
    AsyncPolicy::new(AUTOBATCH, policy)
}

/// Refreshing running actors goes through the policy state, which borrows and is safe.
pub fn refresh_actors(actors: &mut AsyncPolicy<DqnPolicy>, record: ModuleRecord) {
    let state = actors.state().load_record(record);
    actors.update(state);
}

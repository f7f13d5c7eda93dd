//! burn-app: a CTC speech recogniser with an upsampling front end, a DQN agent trained with
//! asynchronous actors, and a capture-graph export. It trains on the wgpu backend.
//!
//! Each module puts a call that panics at run time next to the safe way of writing it;
//! `panic-lens check examples/burn-app` reports the first kind only.

mod data;
mod model;
mod rl;
mod router;
mod train;

use burn::prelude::*;

fn main() {
    let device = Device::wgpu(Default::default());
    let artifact_dir = "target/burn-app";

    let config = train::TrainingConfig::new(model::AcousticModelConfig::new(40, 32));
    train::train(artifact_dir, config, device.clone());

    let agent = rl::resume_actors(rl::DqnPolicy::new(&device), rl::load_checkpoint(artifact_dir));
    agent.increment_agents(4);

    router::export_token_graphs(vec![3, 1, 4, 1, 5], vec![0, 1, 2, 3, 4]);
}

//! Five small burn 0.22 models with their probes and training code: a decoder-only language
//! model, a vision transformer, a graph network, an actor-critic policy and a forecaster.

pub mod forecast;
pub mod gnn;
pub mod gpt;
pub mod hparams;
pub mod policy;
pub mod vit;

//! blind-7: a small transformer, a CNN classifier with a U-Net style decoder, a data pipeline
//! with its batchers, a training step with its losses and metrics, and recurrent sequence
//! models, written in burn's generic backend style (`Model<B: Backend>`, `Tensor<B, D>`,
//! `B::Device`).

pub mod data;
pub mod rnn_seq;
pub mod training;
pub mod transformer;
pub mod vision;

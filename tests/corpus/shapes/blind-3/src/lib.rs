//! Model, data and training code for four small projects on burn 0.22: a GRU encoder-decoder
//! summariser, a speech front end, a single-scale object detector, a tabular training loop and
//! a small diffusion model.

pub mod audio;
pub mod detector;
pub mod diffusion;
pub mod hparams;
pub mod seq2seq;
pub mod trainer;

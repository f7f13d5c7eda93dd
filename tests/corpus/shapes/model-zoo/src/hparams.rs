//! Hyper-parameters shared by the model's modules.

pub const D_MODEL: usize = 48;
pub const N_HEADS: usize = 5;
pub const N_GROUPS: usize = 8;
pub const SEQ_LEN: usize = 16;
pub const VOCAB: usize = 30;

pub const DROPOUT: f64 = 0.1;
pub const BAD_DROPOUT: f64 = 1.5;
pub const RMS_EPS: f64 = 1e-6;
pub const ZERO_EPS: f64 = 0.0;
pub const HUBER_DELTA: f32 = -0.5;
pub const SMOOTHING: f32 = 0.1;
pub const OVER_SMOOTHING: f32 = 1.2;
pub const ROPE_THETA: f32 = 10_000.0;
pub const NEG_THETA: f32 = -1.0;
pub const NOISE_STD: f64 = -0.01;

pub mod vision {
    pub const CHANNELS: usize = 30;
    pub const GROUPS: usize = 4;
}

/// The model's own config, declared here and read by `user_configs.rs`.
#[derive(burn::config::Config, Debug)]
pub struct NormConfig {
    pub channels: usize,
    #[config(default = "6")]
    pub groups: usize,
}

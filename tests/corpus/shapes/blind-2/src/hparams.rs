//! Hyper-parameters shared by the models and the training code.

// Images (U-Net).
pub const IMG_SIZE: usize = 64;
pub const IN_CHANNELS: usize = 3;
pub const BASE_CHANNELS: usize = 16;
/// Groups of the decoder's last norm, kept from the 48-channel experiment.
pub const HEAD_GROUPS: usize = 6;

// Text.
pub const VOCAB_SIZE: usize = 8_000;
pub const D_MODEL: usize = 64;
pub const N_HEADS: usize = 4;
pub const MAX_SEQ_LEN: usize = 32;
pub const N_CLASSES: usize = 5;
pub const LABEL_SMOOTHING: f32 = 0.1;

// Training.
pub const BATCH_SIZE: usize = 8;
pub const LATENT_DIM: usize = 20;
pub const HIDDEN_DIM: usize = 400;
pub const DROPOUT: f64 = 0.1;
pub const LEARNING_RATE: f64 = 1e-3;

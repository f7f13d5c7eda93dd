//! Hyper-parameters shared by the models and the training code.

// text
pub const VOCAB_SIZE: usize = 8_000;
pub const EMBED_DIM: usize = 128;
pub const HIDDEN_DIM: usize = 256;
/// Long-document summarisation: sources are cut at 16k tokens.
pub const MAX_SOURCE_LEN: usize = 16_384;
pub const MAX_TARGET_LEN: usize = 8;
pub const BEAM_WIDTH: usize = 4;

// audio
pub const SAMPLE_RATE: usize = 16_000;
pub const N_FFT: usize = 512;
/// Whisper's window: 25 ms at 16 kHz.
pub const WHISPER_N_FFT: usize = 400;
pub const FRAME_SHIFT_MS: usize = 10;
pub const N_MELS: usize = 80;
pub const TARGET_RATE: usize = 48_000;

// detection
pub const IMAGE_SIZE: usize = 416;
pub const GRID: usize = 13;
pub const NUM_ANCHORS: usize = 3;
pub const NUM_CLASSES: usize = 20;

// diffusion
pub const BETA_START: f64 = 1e-4;
pub const BETA_END: f64 = 0.02;
pub const NUM_STEPS: usize = 1000;
pub const NORM_GROUPS: usize = 32;

// training
pub const BATCH: usize = 32;
pub const LR: f64 = 1e-3;
/// Label smoothing, in percent.
pub const LABEL_SMOOTHING_PCT: f32 = 10.0;
pub const Y_MIN: f32 = 0.0;
pub const Y_MAX: f32 = 5.0;
/// Precision is reported at top-1.
pub const TOP_K: usize = 1;
pub const TRAIN_SPLIT: usize = 28;
pub const VAL_SPLIT: usize = 8;

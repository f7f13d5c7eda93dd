//! Hyper-parameters the modules share (declarations only).

use burn::prelude::*;

pub mod loss {
    /// Label smoothing as a fraction.
    pub const LABEL_SMOOTHING: f32 = 0.1;
    /// Label smoothing as the paper's table writes it.
    pub const SMOOTHING_PERCENT: f32 = 10.0;
    pub const HUBER_DELTA: f32 = 1.0;
    pub const RANKING_MARGIN: f64 = 0.2;
    /// Order of the norm of the Lp loss (1 = L1).
    pub const P_NORM: f64 = 1.0;
    pub const N_TAGS: usize = 6;
    /// Letters, space and apostrophe: the CTC alphabet without its blank.
    pub const ALPHABET: usize = 28;
    pub const ENCODER_DIM: usize = 144;
}

pub mod model {
    pub const D_MODEL: usize = 256;
    pub const N_HEADS: usize = 8;
    pub const N_KV_HEADS: usize = 3;
    pub const HEAD_DIM: usize = D_MODEL / N_HEADS;
    pub const D_CONTEXT: usize = 512;
    pub const BASE_CHANNELS: usize = 40;
    pub const NORM_GROUPS: usize = 32;
    pub const MAX_TOKENS: usize = 16_384;
    pub const DROPOUT_PERCENT: f64 = 10.0;
    pub const LRN_WINDOW: usize = 1;
}

pub mod eval {
    pub const N_CLASSES: usize = 10;
    pub const BLEU_ORDER: usize = 4;
    pub const MAX_PIXEL: f64 = 255.0;
    pub const IMAGE_SIZE: usize = 32;
    pub const HISTORY: usize = 8;
}

pub mod signal {
    pub const SAMPLE_RATE: usize = 16_000;
    /// 25 ms at 16 kHz.
    pub const WIN_LENGTH: usize = 400;
    /// 10 ms at 16 kHz.
    pub const HOP_LENGTH: usize = 160;
    pub const N_FFT: usize = 512;
    pub const UPSCALE: usize = 2;
    pub const STEM_CHANNELS: usize = 96;
}

/// The crate's own training options (burn's derive).
#[derive(Config, Debug)]
pub struct TrainOptions {
    pub n_classes: usize,
    #[config(default = 0.1)]
    pub dropout: f64,
    #[config(default = 1e-6)]
    pub rms_epsilon: f64,
    #[config(default = 0.0)]
    pub rope_theta: f32,
}

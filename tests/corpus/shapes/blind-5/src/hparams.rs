//! Hyper-parameters the modules share (declarations only).

pub mod audio {
    pub const SAMPLE_RATE: usize = 16_000;
    pub const HOP_LENGTH: usize = 160;
    pub const N_MELS: usize = 80;
    pub const CHUNK_SECONDS: usize = 30;
    /// Mel frames in one 30 s window.
    pub const N_FRAMES: usize = CHUNK_SECONDS * SAMPLE_RATE / HOP_LENGTH;
    pub const MAX_TIMESCALE: usize = 10_000;
}

pub mod text {
    pub const N_VOCAB: usize = 512;
    pub const HEAD_DIM: usize = 64;
    /// start of transcript, language, task
    pub const SOT_SEQUENCE: [i32; 3] = [1, 2, 3];
}

pub mod recsys {
    pub const N_USERS: usize = 1_000;
    pub const N_ITEMS: usize = 50;
    pub const USER_DIM: usize = 64;
    pub const ITEM_DIM: usize = 32;
    pub const PAGE_SIZE: usize = 20;
    pub const N_NEGATIVES: usize = 5;
}

pub mod vision {
    pub const IMAGE_SIZE: usize = 32;
    pub const MEAN: [f32; 3] = [0.4914, 0.4822, 0.4465];
    pub const STD: [f32; 3] = [0.2470, 0.2435, 0.2616];
    pub const NORM_GROUPS: usize = 32;
    pub const OUTPUT_STRIDE: usize = 8;
}

pub mod eval {
    pub const TOP_K: usize = 5;
}

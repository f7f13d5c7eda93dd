//! Hyper-parameters shared by the models of the crate.

// Language model
pub const VOCAB: usize = 512;
pub const D_MODEL: usize = 64;
pub const N_HEADS: usize = 4;
pub const CONTEXT: usize = 32;
pub const BATCH: usize = 4;

// Vision transformer
pub const IMAGE: usize = 32;
pub const PATCH: usize = 4;
pub const CHANNELS: usize = 3;
pub const NUM_CLASSES: usize = 10;
pub const EMBED: usize = 48;

// Graph network
pub const N_NODES: usize = 10;
pub const N_EDGES: usize = 24;
pub const NODE_FEATS: usize = 16;
pub const EDGE_FEATS: usize = 4;
pub const HIDDEN: usize = 32;

// Actor-critic
pub const OBS_DIM: usize = 8;
pub const N_ACTIONS: usize = 6;
pub const N_ENVS: usize = 4;
pub const ROLLOUT: usize = 16;
pub const GAMMA: f32 = 0.99;
pub const LAMBDA: f32 = 0.95;
pub const CLIP: f32 = 0.2;

// Forecaster
pub const LOOKBACK: usize = 48;
pub const HORIZON: usize = 36;
pub const SEASON: usize = 24;
pub const N_VARS: usize = 3;
pub const FILTERS: usize = 16;

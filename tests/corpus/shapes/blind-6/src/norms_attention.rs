//! Normalisation and attention blocks of a small encoder-decoder: group norms over a widening
//! stem, layer / RMS / batch / local-response norms, self- and cross-attention (grouped-query),
//! sinusoidal and rotary positions, dropout rates from a sweep. Sizes come from consts of
//! `hparams`, arithmetic on them and the crate's own config structs.

use burn::nn::attention::{
    CrossAttention, CrossAttentionConfig, MultiHeadAttention, MultiHeadAttentionConfig,
};
use burn::nn::{
    BatchNorm, BatchNormConfig, Dropout, DropoutConfig, GroupNorm, GroupNormConfig, LayerNorm,
    LayerNormConfig, LocalResponseNorm, LocalResponseNormConfig, PositionalEncoding,
    PositionalEncodingConfig, RmsNorm, RmsNormConfig, RotaryEncoding, RotaryEncodingConfig,
};
use burn::prelude::*;

use crate::hparams::TrainOptions;
use crate::hparams::model::{
    BASE_CHANNELS, D_CONTEXT, D_MODEL, DROPOUT_PERCENT, HEAD_DIM, LRN_WINDOW, MAX_TOKENS,
    NORM_GROUPS, N_HEADS, N_KV_HEADS,
};

// ---------------------------------------------------------------------------------------------
// Group norms of a stem whose width grows by 1x, 2x, 3x the base.
// ---------------------------------------------------------------------------------------------

pub fn stem_norms(device: &Device) -> Vec<GroupNorm> {
    let mut norms = Vec::new();
    for width in [BASE_CHANNELS * 4, BASE_CHANNELS * 8, BASE_CHANNELS * 3] {
        norms.push(GroupNormConfig::new(NORM_GROUPS, width).init(device)); // expect: group-norm-groups-divide-channels
    }
    norms
}

pub fn head_norm(device: &Device) -> GroupNorm {
    // 96 channels in 32 groups of 3
    GroupNormConfig::new(NORM_GROUPS, 3 * NORM_GROUPS).init(device) // ok
}

/// The blocks' norm layout.
pub struct BlockLayout {
    pub channels: usize,
    pub groups: usize,
}

impl BlockLayout {
    pub fn bottleneck() -> Self {
        Self {
            channels: BASE_CHANNELS * 6,
            groups: NORM_GROUPS,
        }
    }

    pub fn norm(&self, device: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, self.channels).init(device) // expect: group-norm-groups-divide-channels
    }
}

pub fn bottleneck_norm(device: &Device) -> GroupNorm {
    BlockLayout::bottleneck().norm(device)
}

pub fn groups_from_env(device: &Device) -> GroupNorm {
    let wide = std::env::var("WIDE_GROUPS").is_ok();
    let groups = if wide { 32 } else { 7 };
    GroupNormConfig::new(groups, 96).init(device) // ok (7 does not divide 96, but 32 does: the arms disagree)
}

// ---------------------------------------------------------------------------------------------
// Layer, RMS, batch and local-response norms.
// ---------------------------------------------------------------------------------------------

#[derive(Module, Debug)]
pub struct NormBank {
    layer: LayerNorm,
    rms: RmsNorm,
    batch: BatchNorm,
    lrn: LocalResponseNorm,
}

impl NormBank {
    pub fn new(options: &TrainOptions, device: &Device) -> Self {
        Self {
            // LayerNorm has no epsilon check
            layer: LayerNormConfig::new(D_MODEL).with_epsilon(0.0).init(device), // ok
            rms: RmsNormConfig::new(D_MODEL).with_epsilon(options.rms_epsilon).init(device), // ok (1e-6 by default)
            batch: BatchNormConfig::new(BASE_CHANNELS).with_momentum(1.5).init(device), // ok (momentum is not checked)
            lrn: LocalResponseNormConfig::new(5).init(), // ok
        }
    }

    /// Pre-norm of the exported model: the exporter writes epsilon 0.
    pub fn exported(device: &Device) -> Self {
        let options = TrainOptions::new(10).with_rms_epsilon(0.0);
        Self {
            layer: LayerNormConfig::new(D_MODEL).init(device),
            rms: RmsNormConfig::new(D_MODEL).with_epsilon(options.rms_epsilon).init(device), // expect: rms-norm-epsilon-positive
            batch: BatchNormConfig::new(BASE_CHANNELS).init(device),
            // AlexNet's window over the neighbouring channels, halved for the small model
            lrn: LocalResponseNormConfig::new(LRN_WINDOW / 2).init(), // expect: local-response-norm-size-zero
        }
    }
}

pub fn lrn_window_fixed() -> LocalResponseNorm {
    let mut size = LRN_WINDOW / 2;
    if size == 0 {
        size = 1;
    }
    LocalResponseNormConfig::new(size).init() // ok (raised to 1)
}

// ---------------------------------------------------------------------------------------------
// Attention.
// ---------------------------------------------------------------------------------------------

pub fn self_attention(device: &Device) -> MultiHeadAttention {
    MultiHeadAttentionConfig::new(D_MODEL, N_HEADS).with_dropout(DROPOUT_PERCENT).init(device) // expect: dropout-probability-range
}

pub fn self_attention_fraction(device: &Device) -> MultiHeadAttention {
    MultiHeadAttentionConfig::new(D_MODEL, N_HEADS).with_dropout(DROPOUT_PERCENT / 100.0).init(device) // ok
}

pub fn odd_width_attention(device: &Device) -> MultiHeadAttention {
    // init does not check that the heads divide d_model (d_k = 100 / 8 = 12)
    MultiHeadAttentionConfig::new(100, N_HEADS).init(device) // ok
}

pub fn decoder_cross_attention(device: &Device) -> CrossAttention {
    CrossAttentionConfig::new(D_MODEL, D_CONTEXT, N_HEADS, N_KV_HEADS, HEAD_DIM).init(device) // expect: cross-attention-heads-divide-kv-heads
}

pub fn gqa_cross_attention(device: &Device) -> CrossAttention {
    CrossAttentionConfig::new(D_MODEL, D_CONTEXT, N_HEADS, N_HEADS / 2, HEAD_DIM).init(device) // ok (4 kv heads for 8)
}

/// Cross attention of each decoder layer, one kv-head count per layer.
pub fn layered_cross_attention(device: &Device) -> Vec<CrossAttention> {
    [1, 2, 4, 8]
        .iter()
        .map(|&kv| CrossAttentionConfig::new(D_MODEL, D_CONTEXT, N_HEADS, kv, HEAD_DIM).init(device)) // ok (every count divides 8)
        .collect()
}

pub fn cross_attention_with_dropout(device: &Device) -> CrossAttention {
    CrossAttentionConfig::new(D_MODEL, D_CONTEXT, N_HEADS, 2, HEAD_DIM).with_dropout(DROPOUT_PERCENT).init(device) // expect: dropout-probability-range
}

// ---------------------------------------------------------------------------------------------
// Positions.
// ---------------------------------------------------------------------------------------------

#[derive(Module, Debug)]
pub struct Embedder {
    positions: PositionalEncoding,
    rotary: RotaryEncoding,
}

impl Embedder {
    /// One extra feature carries the segment id.
    pub fn with_segment_slot(device: &Device) -> Self {
        let width = N_HEADS * HEAD_DIM + 1;
        Self {
            positions: PositionalEncodingConfig::new(width).init(device), // expect: positional-encoding-d-model-even
            rotary: RotaryEncodingConfig::new(2048, HEAD_DIM).init(device), // ok
        }
    }

    /// Long documents: every token gets its position.
    pub fn long_context(device: &Device) -> Self {
        Self {
            positions: PositionalEncodingConfig::new(D_MODEL).with_max_sequence_size(MAX_TOKENS).init(device), // expect: positional-encoding-timescale-below-length
            rotary: RotaryEncodingConfig::new(MAX_TOKENS, HEAD_DIM).with_theta(500_000.0).init(device), // ok
        }
    }

    pub fn at_timescale(device: &Device) -> Self {
        Self {
            positions: PositionalEncodingConfig::new(D_MODEL).with_max_sequence_size(10_000).init(device), // ok (equal to the default timescale)
            rotary: RotaryEncodingConfig::new(10_000, D_MODEL / 2).init(device), // ok
        }
    }
}

/// Rotary heads of a 200-wide model.
pub fn rotary_heads(device: &Device) -> RotaryEncoding {
    let embed = 200;
    RotaryEncodingConfig::new(2048, embed / N_HEADS).init(device) // expect: rotary-encoding-d-model-even
}

pub fn rotary_from_options(options: &TrainOptions, device: &Device) -> RotaryEncoding {
    RotaryEncodingConfig::new(2048, HEAD_DIM).with_theta(options.rope_theta).init(device) // expect: rotary-encoding-theta-positive
}

pub fn rotary_default_options(device: &Device) -> RotaryEncoding {
    rotary_from_options(&TrainOptions::new(10), device)
}

// ---------------------------------------------------------------------------------------------
// Dropout rates.
// ---------------------------------------------------------------------------------------------

/// The sweep's rates, the last one copied from a table in percent.
pub fn dropout_sweep() -> Vec<Dropout> {
    let make = |p: f64| DropoutConfig::new(p).init(); // expect: dropout-probability-range
    [0.0, 0.1, 0.3, 15.0].into_iter().map(make).collect()
}

pub fn dropout_bounds() -> [Dropout; 2] {
    [DropoutConfig::new(0.0).init(), DropoutConfig::new(1.0).init()] // ok (both ends are accepted)
}

pub fn dropout_from_options(options: &TrainOptions) -> Dropout {
    DropoutConfig::new(options.dropout).init() // ok (0.1 by default)
}

pub fn dropout_from_cli() -> Dropout {
    let p: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(0.1);
    DropoutConfig::new(p * 100.0).init() // ok (p from the command line)
}

/// The crate's own dropout config, which takes a percentage.
pub mod percent {
    pub struct DropoutConfig {
        pub percent: f64,
    }

    impl DropoutConfig {
        pub fn new(percent: f64) -> Self {
            Self { percent }
        }

        pub fn init(&self) -> burn::nn::Dropout {
            burn::nn::DropoutConfig::new(self.percent / 100.0).init()
        }
    }
}

pub fn percent_dropout() -> Dropout {
    percent::DropoutConfig::new(DROPOUT_PERCENT).init() // ok (the crate's own config divides by 100)
}

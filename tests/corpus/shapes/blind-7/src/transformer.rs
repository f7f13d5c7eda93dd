//! A small transformer language model in the generic backend style: sizes from a
//! `#[derive(Config)]` with defaults, heads split by `reshape` + `swap_dims`, causal masks from
//! `tril_mask`/`triu_mask`, sinusoidal and rotary positions, a tied output projection, and the
//! shape walk-throughs the project keeps next to the model.

use burn::nn::attention::{MultiHeadAttention, MultiHeadAttentionConfig};
use burn::nn::transformer::{
    TransformerDecoder, TransformerDecoderConfig, TransformerEncoder, TransformerEncoderConfig,
    TransformerEncoderInput,
};
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear,
    LinearConfig, PositionalEncoding, PositionalEncodingConfig, RotaryEncoding,
    RotaryEncodingConfig,
};
use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::backend::Backend;
use burn::tensor::{Bool, Distribution};

pub mod consts {
    pub const VOCAB_SIZE: usize = 1000;
    pub const D_MODEL: usize = 96;
    pub const N_HEADS: usize = 6;
    pub const HEAD_DIM: usize = D_MODEL / N_HEADS; // 16
    pub const MAX_LEN: usize = 64;
    pub const BATCH: usize = 2;
    /// Attention dropout as written in the paper's table (percent).
    pub const ATTN_DROPOUT: f64 = 10.0;
    /// The long-context preset.
    pub const LONG_CONTEXT: usize = 16_384;
}

#[derive(Config, Debug)]
pub struct TinyTransformerConfig {
    #[config(default = 1000)]
    pub vocab_size: usize,
    #[config(default = 96)]
    pub d_model: usize,
    #[config(default = 6)]
    pub n_heads: usize,
    #[config(default = 384)]
    pub d_ff: usize,
    #[config(default = 2)]
    pub n_layers: usize,
    #[config(default = 64)]
    pub max_len: usize,
    #[config(default = 0.1)]
    pub dropout: f64,
}

#[derive(Module, Debug)]
pub struct TinyTransformer<B: Backend> {
    embedding: Embedding<B>,
    positions: PositionalEncoding<B>,
    encoder: TransformerEncoder<B>,
    norm: LayerNorm<B>,
    dropout: Dropout,
}

impl TinyTransformerConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> TinyTransformer<B> {
        TinyTransformer {
            embedding: EmbeddingConfig::new(self.vocab_size, self.d_model).init(device),
            positions: PositionalEncodingConfig::new(self.d_model)
                .with_max_sequence_size(self.max_len)
                .init(device), // ok (64 positions, under the default 10_000 timescale)
            encoder: TransformerEncoderConfig::new(self.d_model, self.d_ff, self.n_heads, self.n_layers)
                .with_dropout(self.dropout)
                .init(device), // ok
            norm: LayerNormConfig::new(self.d_model).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // ok
        }
    }
}

/// The causal mask for a batch: `[batch, seq, seq]`, true above the diagonal.
pub fn causal_mask<B: Backend>(batch: usize, seq: usize, device: &B::Device) -> Tensor<B, 3, Bool> {
    Tensor::<B, 2, Bool>::triu_mask([seq, seq], 1, device)
        .unsqueeze::<3>()
        .expand([batch, seq, seq]) // ok
}

impl<B: Backend> TinyTransformer<B> {
    pub fn forward(&self, tokens: Tensor<B, 2, Int>) -> Tensor<B, 3> {
        let [batch, seq] = tokens.dims();
        let x = self.embedding.forward(tokens);
        let x = self.dropout.forward(self.positions.forward(x));
        let mask = causal_mask::<B>(batch, seq, &x.device());
        let x = self.encoder.forward(TransformerEncoderInput::new(x).mask_attn(mask));
        let x = self.norm.forward(x);
        // tied output projection: [batch, seq, d_model] x [1, d_model, vocab]
        let weight = self.embedding.weight.val().transpose().unsqueeze::<3>();
        x.matmul(weight) // ok
    }
}

// ---------------------------------------------------------------------------------------------
// A hand-written attention block.
// ---------------------------------------------------------------------------------------------

#[derive(Config, Debug)]
pub struct SelfAttentionConfig {
    pub d_model: usize,
    #[config(default = 6)]
    pub n_heads: usize,
}

#[derive(Module, Debug)]
pub struct SelfAttention<B: Backend> {
    qkv: Linear<B>,
    out: Linear<B>,
    n_heads: usize,
    head_dim: usize,
}

impl SelfAttentionConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> SelfAttention<B> {
        SelfAttention {
            qkv: LinearConfig::new(self.d_model, 3 * self.d_model).init(device),
            out: LinearConfig::new(self.d_model, self.d_model).init(device),
            n_heads: self.n_heads,
            head_dim: self.d_model / self.n_heads,
        }
    }
}

impl<B: Backend> SelfAttention<B> {
    fn split_heads(&self, x: Tensor<B, 3>) -> Tensor<B, 4> {
        let [batch, seq, _] = x.dims();
        x.reshape([batch, seq, self.n_heads, self.head_dim]).swap_dims(1, 2) // ok (6 heads of 16 for the 96 features)
    }

    pub fn forward(&self, x: Tensor<B, 3>, mask: Tensor<B, 4, Bool>) -> Tensor<B, 3> {
        let [batch, seq, d_model] = x.dims();
        let qkv = self.qkv.forward(x);
        let q = self.split_heads(qkv.clone().narrow(2, 0, d_model));
        let k = self.split_heads(qkv.clone().narrow(2, d_model, d_model));
        let v = self.split_heads(qkv.narrow(2, 2 * d_model, d_model));
        let scale = (self.head_dim as f32).sqrt();
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar(scale); // ok
        let weights = softmax(scores.mask_fill(mask, -1.0e9), 3);
        let context = weights.matmul(v).swap_dims(1, 2).reshape([batch, seq, d_model]); // ok
        self.out.forward(context)
    }
}

pub fn attention_block<B: Backend>(device: &B::Device) -> SelfAttention<B> {
    SelfAttentionConfig::new(consts::D_MODEL).init(device)
}

// ---------------------------------------------------------------------------------------------
// Shape walk-throughs kept next to the model.
// ---------------------------------------------------------------------------------------------

/// GPT-2 small's head layout (8 heads of 16) tried on this model's activations.
fn heads_of<B: Backend>(x: Tensor<B, 3>, n_heads: usize, head_dim: usize) -> Tensor<B, 4> {
    let [batch, seq, _] = x.dims();
    x.reshape([batch, seq, n_heads, head_dim]).swap_dims(1, 2) // expect: reshape-incompatible-shape
}

pub fn attention_probe<B: Backend>(device: &B::Device) -> Vec<Tensor<B, 4>> {
    use consts::*;
    let x = Tensor::<B, 3>::random([BATCH, MAX_LEN, D_MODEL], Distribution::Normal(0.0, 1.0), device);
    let gpt2_heads = heads_of(x, 8, HEAD_DIM);

    let q = Tensor::<B, 4>::random([BATCH, N_HEADS, MAX_LEN, HEAD_DIM], Distribution::Normal(0.0, 1.0), device);
    let k = q.clone();
    let scores = q.clone().matmul(k.clone().swap_dims(2, 3)); // ok
    let raw = q.matmul(k); // expect: matmul-inner-dim-mismatch

    let causal = Tensor::<B, 2, Bool>::tril_mask([MAX_LEN, MAX_LEN], 0, device);
    let step_len = MAX_LEN / 2;
    let full = causal.clone().unsqueeze::<4>().expand([BATCH, N_HEADS, MAX_LEN, MAX_LEN]); // ok
    let half = causal.unsqueeze::<4>().expand([BATCH, N_HEADS, step_len, step_len]); // expect: expand-incompatible-shape
    let masked = scores.clone().mask_fill(full, f32::NEG_INFINITY);

    // the KV cache grows by one step along the sequence axis
    let cache = Tensor::<B, 4>::zeros([BATCH, N_HEADS, 10, HEAD_DIM], device);
    let new_key = Tensor::<B, 3>::zeros([BATCH, 1, D_MODEL], device).reshape([BATCH, 1, N_HEADS, HEAD_DIM]); // ok
    let appended = Tensor::cat(vec![cache.clone(), new_key.clone().swap_dims(1, 2)], 2); // ok
    let unswapped = Tensor::cat(vec![cache, new_key], 2); // expect: cat-mismatched-shapes

    let _ = half;
    vec![gpt2_heads, scores, raw, masked, appended, unswapped]
}

/// Learned positions of the GPT-style variant, added to a prompt of half the context.
pub fn learned_positions<B: Backend>(device: &B::Device) -> (Tensor<B, 3>, Tensor<B, 3>) {
    use consts::*;
    let table = Tensor::<B, 3>::zeros([1, MAX_LEN, D_MODEL], device);
    let prompt = Tensor::<B, 3>::ones([BATCH, MAX_LEN / 2, D_MODEL], device);
    let sliced = prompt.clone() + table.clone().slice([0..1, 0..MAX_LEN / 2, 0..D_MODEL]); // ok
    let unsliced = prompt + table; // expect: binary-op-incompatible-shapes
    (sliced, unsliced)
}

/// The tied head on a fixed batch, then the next-token logits and the loss read back.
pub fn tied_logits<B: Backend>(device: &B::Device) -> (Tensor<B, 3>, Tensor<B, 3>, f32) {
    use consts::*;
    let hidden = Tensor::<B, 3>::zeros([BATCH, MAX_LEN, D_MODEL], device);
    let table = Tensor::<B, 2>::random([VOCAB_SIZE, D_MODEL], Distribution::Normal(0.0, 0.02), device);
    let logits = hidden.clone().matmul(table.clone().transpose().unsqueeze::<3>()); // ok
    let untied = hidden.matmul(table.unsqueeze::<3>()); // expect: matmul-inner-dim-mismatch

    let last = logits.clone().narrow(1, MAX_LEN - 1, 1); // ok
    let past_end = logits.clone().narrow(1, MAX_LEN, 1); // expect: narrow-out-of-range

    let nll = logits.mean_dim(2); // [2, 64, 1]
    let total: f32 = nll.clone().mean().into_scalar().elem(); // ok
    let per_token: f32 = nll.into_scalar().elem(); // expect: into-scalar-multiple-elements
    let _ = (untied, per_token);
    (last, past_end, total)
}

// ---------------------------------------------------------------------------------------------
// Positions and attention configs per preset.
// ---------------------------------------------------------------------------------------------

/// The long-context preset: positions for 16k tokens.
pub fn long_context_positions<B: Backend>(device: &B::Device) -> PositionalEncoding<B> {
    let cfg = TinyTransformerConfig::new().with_max_len(consts::LONG_CONTEXT);
    PositionalEncodingConfig::new(cfg.d_model).with_max_sequence_size(cfg.max_len).init(device) // expect: positional-encoding-timescale-below-length
}

pub fn long_context_positions_fixed<B: Backend>(device: &B::Device) -> PositionalEncoding<B> {
    let cfg = TinyTransformerConfig::new().with_max_len(consts::LONG_CONTEXT);
    PositionalEncodingConfig::new(cfg.d_model)
        .with_max_sequence_size(cfg.max_len)
        .with_max_timescale(cfg.max_len)
        .init(device) // ok (the timescale raised to the length)
}

pub fn positions_from_env<B: Backend>(device: &B::Device) -> PositionalEncoding<B> {
    let len = std::env::var("MAX_LEN").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    PositionalEncodingConfig::new(consts::D_MODEL).with_max_sequence_size(len).init(device) // ok (length read at run time)
}

#[derive(Clone, Copy, Debug)]
pub enum Preset {
    Tiny,
    Small,
    Wide,
}

impl Preset {
    /// (d_model, n_heads)
    pub fn dims(self) -> (usize, usize) {
        match self {
            Preset::Tiny => (96, 6),
            Preset::Small => (256, 8),
            Preset::Wide => (90, 6),
        }
    }
}

pub fn wide_rotary<B: Backend>(device: &B::Device) -> RotaryEncoding<B> {
    let (d_model, n_heads) = Preset::Wide.dims();
    RotaryEncodingConfig::new(consts::MAX_LEN, d_model / n_heads).init(device) // expect: rotary-encoding-d-model-even
}

pub fn tiny_rotary<B: Backend>(device: &B::Device) -> RotaryEncoding<B> {
    let (d_model, n_heads) = Preset::Tiny.dims();
    RotaryEncodingConfig::new(consts::MAX_LEN, d_model / n_heads).init(device) // ok (16 per head)
}

pub fn cross_block<B: Backend>(device: &B::Device) -> MultiHeadAttention<B> {
    MultiHeadAttentionConfig::new(consts::D_MODEL, consts::N_HEADS)
        .with_dropout(consts::ATTN_DROPOUT)
        .init(device) // expect: dropout-probability-range
}

pub fn cross_block_fraction<B: Backend>(device: &B::Device) -> MultiHeadAttention<B> {
    let mut rate = consts::ATTN_DROPOUT;
    rate /= 100.0;
    MultiHeadAttentionConfig::new(consts::D_MODEL, consts::N_HEADS).with_dropout(rate).init(device) // ok (turned into a fraction first)
}

/// The encoder-only preset keeps an empty decoder stack.
pub fn empty_decoder<B: Backend>(device: &B::Device) -> TransformerDecoder<B> {
    use consts::*;
    TransformerDecoderConfig::new(D_MODEL, 4 * D_MODEL, N_HEADS, 0)
        .with_dropout(ATTN_DROPOUT)
        .init(device) // ok (no layer is built, so no dropout is)
}

/// The crate's own prompt window, named like burn's op.
pub struct PromptWindow {
    tokens: Vec<usize>,
}

impl PromptWindow {
    pub fn narrow(&self, start: usize, len: usize) -> Vec<usize> {
        self.tokens.iter().skip(start).take(len).copied().collect()
    }
}

pub fn prompt_tail() -> Vec<usize> {
    let window = PromptWindow { tokens: vec![1, 2, 3] };
    window.narrow(consts::MAX_LEN, 1) // ok (the crate's own narrow)
}

#[cfg(test)]
mod tests {
    use super::*;
    type TestBackend = burn::backend::NdArray;

    #[test]
    #[should_panic]
    fn odd_head_width_is_rejected() {
        let device = Default::default();
        let _ = RotaryEncodingConfig::new(consts::MAX_LEN, 15).init::<TestBackend>(&device); // ok (a #[should_panic] test)
    }
}

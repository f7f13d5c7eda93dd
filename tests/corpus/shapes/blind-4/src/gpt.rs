//! A small decoder-only language model (GPT style): token and learned position embeddings added,
//! causal self-attention with heads split by `reshape`/`swap_dims`, a KV cache grown by `cat`,
//! tied output logits, the last step narrowed out and a top-k sampler.

use burn::module::Initializer;
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear,
    LinearConfig, PositionalEncoding, PositionalEncodingConfig, RotaryEncoding,
    RotaryEncodingConfig,
};
use burn::prelude::*;
use burn::tensor::activation::{gelu, log_softmax, softmax};

use crate::hparams::{BATCH, CONTEXT, D_MODEL, N_HEADS, VOCAB};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSize {
    Nano,
    Micro,
    Mini,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionKind {
    Learned,
    Sinusoidal,
    Rotary,
}

#[derive(Debug, Clone)]
pub struct GptConfig {
    pub vocab: usize,
    pub d_model: usize,
    pub n_heads: usize,
    pub n_layers: usize,
    pub context: usize,
    pub dropout: f64,
}

impl Default for GptConfig {
    fn default() -> Self {
        Self {
            vocab: VOCAB,
            d_model: D_MODEL,
            n_heads: N_HEADS,
            n_layers: 2,
            context: CONTEXT,
            dropout: 0.1,
        }
    }
}

impl GptConfig {
    /// Longest prompt the sinusoidal table is built for.
    pub const LONG_CONTEXT: usize = 16_384;

    pub fn sized(size: ModelSize) -> Self {
        match size {
            ModelSize::Nano => Self { d_model: 32, n_heads: 2, ..Default::default() },
            ModelSize::Micro => Self::default(),
            ModelSize::Mini => Self { d_model: 128, n_heads: 8, n_layers: 4, ..Default::default() },
        }
    }

    pub fn head_dim(&self) -> usize {
        self.d_model / self.n_heads
    }

    pub fn init(&self, device: &Device) -> Gpt {
        let blocks = (0..self.n_layers)
            .map(|_| Block::new(self, device))
            .collect::<Vec<_>>();

        Gpt {
            token: EmbeddingConfig::new(self.vocab, self.d_model).init(device),
            positions: EmbeddingConfig::new(self.context, self.d_model).init(device),
            blocks,
            norm: LayerNormConfig::new(self.d_model).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // ok (0.1 for every size)
        }
    }
}

/// The number of heads each preset was trained with.
pub fn heads_for(size: ModelSize) -> usize {
    match size {
        ModelSize::Nano => 2,
        ModelSize::Micro => 4,
        ModelSize::Mini => 6,
    }
}

#[derive(Module, Debug)]
pub struct Block {
    ln1: LayerNorm,
    qkv: Linear,
    proj: Linear,
    ln2: LayerNorm,
    fc: Linear,
    out: Linear,
    n_heads: usize,
}

impl Block {
    pub fn new(cfg: &GptConfig, device: &Device) -> Self {
        let d = cfg.d_model;
        Self {
            ln1: LayerNormConfig::new(d).init(device),
            qkv: LinearConfig::new(d, 3 * d).init(device),
            proj: LinearConfig::new(d, d).init(device),
            ln2: LayerNormConfig::new(d).init(device),
            fc: LinearConfig::new(d, 4 * d).init(device),
            out: LinearConfig::new(4 * d, d).init(device),
            n_heads: cfg.n_heads,
        }
    }

    pub fn forward(&self, x: Tensor<3>, causal: Tensor<4, Bool>) -> Tensor<3> {
        let [b, t, d] = x.dims();
        let qkv = self.qkv.forward(self.ln1.forward(x.clone()));
        let q = qkv.clone().narrow(2, 0, d);
        let k = qkv.clone().narrow(2, d, d);
        let v = qkv.narrow(2, 2 * d, d); // ok

        let (q, k, v) = (
            split_heads(q, self.n_heads),
            split_heads(k, self.n_heads),
            split_heads(v, self.n_heads),
        );
        let scale = ((d / self.n_heads) as f64).sqrt();
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar(scale); // ok
        let scores = scores.mask_fill(causal, f32::NEG_INFINITY);
        let context = softmax(scores, 3).matmul(v);
        let context = context.swap_dims(1, 2).reshape([b, t, d]); // ok

        let x = x + self.proj.forward(context);
        let h = self.out.forward(gelu(self.fc.forward(self.ln2.forward(x.clone()))));
        x + h
    }
}

/// `[b, t, d]` -> `[b, heads, t, d / heads]`.
fn split_heads(x: Tensor<3>, heads: usize) -> Tensor<4> {
    let [b, t, d] = x.dims();
    x.reshape([b, t, heads, d / heads]).swap_dims(1, 2) // expect: reshape-incompatible-shape
}

#[derive(Module, Debug)]
pub struct Gpt {
    token: Embedding,
    positions: Embedding,
    blocks: Vec<Block>,
    norm: LayerNorm,
    dropout: Dropout,
}

impl Gpt {
    pub fn forward(&self, tokens: Tensor<2, Int>) -> Tensor<3> {
        let [_, t] = tokens.dims();
        let device = tokens.device();
        let ids = Tensor::<1, Int>::arange(0..t as i64, &device).reshape([1, t]);
        let x = self.token.forward(tokens) + self.positions.forward(ids); // ok ([b, t, d] + [1, t, d])
        let x = self.dropout.forward(x);

        let causal = Tensor::<2, Bool>::triu_mask([t, t], 1, &device).unsqueeze::<4>();
        let x = self
            .blocks
            .iter()
            .fold(x, |x, block| block.forward(x, causal.clone()));
        self.tied_logits(self.norm.forward(x))
    }

    /// The output projection shares the token embedding, `[vocab, d]`.
    pub fn tied_logits(&self, h: Tensor<3>) -> Tensor<3> {
        let w = self.token.weight.val().transpose().unsqueeze::<3>();
        h.matmul(w) // ok ([b, t, d] x [1, d, vocab])
    }

    /// Logits of the last position of every sequence.
    pub fn last_step(&self, logits: Tensor<3>) -> Tensor<2> {
        let [_, t, _] = logits.dims();
        logits.narrow(1, t - 1, 1).squeeze_dim::<2>(1) // ok
    }

    /// Logits of the position after the prompt, for the sampler.
    pub fn next_token_logits(&self, logits: Tensor<3>) -> Tensor<2> {
        let [_, t, _] = logits.dims();
        let next = logits.narrow(1, t, 1); // expect: narrow-out-of-range
        next.squeeze_dim::<2>(1)
    }
}

pub enum PositionTable {
    Learned(Embedding),
    Sinusoidal(PositionalEncoding),
    Rotary(RotaryEncoding),
}

pub fn position_table(kind: PositionKind, device: &Device) -> PositionTable {
    match kind {
        PositionKind::Learned => {
            let init = Initializer::KaimingNormal { gain: 0.02, fan_out_only: false };
            let table = EmbeddingConfig::new(CONTEXT, D_MODEL).with_initializer(init).init(device); // expect: initializer-kaiming-without-fan
            PositionTable::Learned(table)
        }
        PositionKind::Sinusoidal => {
            let table = PositionalEncodingConfig::new(D_MODEL).with_max_sequence_size(GptConfig::LONG_CONTEXT).init(device); // expect: positional-encoding-timescale-below-length
            PositionTable::Sinusoidal(table)
        }
        PositionKind::Rotary => {
            let table = RotaryEncodingConfig::new(CONTEXT, D_MODEL / N_HEADS).init(device); // ok (heads 16 wide)
            PositionTable::Rotary(table)
        }
    }
}

/// Rotary tables for two wider presets.
pub fn rotary_tables(device: &Device) -> (RotaryEncoding, RotaryEncoding) {
    let mini = GptConfig::sized(ModelSize::Mini);
    let fits = RotaryEncodingConfig::new(mini.context, mini.head_dim()).init(device); // ok (128 / 8 = 16)

    let wide = GptConfig { d_model: 72, n_heads: 8, ..Default::default() };
    let odd = RotaryEncodingConfig::new(wide.context, wide.head_dim()).init(device); // expect: rotary-encoding-d-model-even
    (fits, odd)
}

/// Keeps the `top_k` largest logits of each row.
#[derive(Debug, Clone)]
pub struct Sampler {
    pub top_k: usize,
    pub temperature: f64,
}

impl Default for Sampler {
    fn default() -> Self {
        Self { top_k: 40, temperature: 0.8 }
    }
}

impl Sampler {
    /// "Keep everything": wider than any vocabulary the crate trains.
    pub const KEEP_ALL: usize = 1_000;

    pub fn keep_all() -> Self {
        Self { top_k: Self::KEEP_ALL, ..Default::default() }
    }

    pub fn filter(&self, logits: Tensor<2>) -> Tensor<2> {
        let scaled = logits.div_scalar(self.temperature);
        let top = scaled.clone().topk(self.top_k, 1); // expect: topk-k-out-of-range
        let kth = top.narrow(1, self.top_k - 1, 1); // ok (the k-th largest of the k kept)
        let below = scaled.clone().lower(kth);
        scaled.mask_fill(below, f32::NEG_INFINITY)
    }
}

/// The crate's own token statistics, with a `topk` of its own.
pub struct TokenCounts {
    counts: Vec<usize>,
}

impl TokenCounts {
    pub fn topk(&self, k: usize) -> Vec<usize> {
        let mut ids: Vec<usize> = (0..self.counts.len()).collect();
        ids.sort_by_key(|&i| std::cmp::Reverse(self.counts[i]));
        ids.truncate(k);
        ids
    }
}

/// Per-batch perplexity of next-token predictions.
pub fn perplexity(logits: Tensor<3>, targets: Tensor<2, Int>) -> f32 {
    let log_probs = log_softmax(logits, 2);
    let picked = log_probs.gather(2, targets.unsqueeze_dim::<3>(2)).squeeze_dim::<2>(2);
    let nll = picked.neg().mean_dim(1);
    nll.exp().into_scalar::<f32>() // expect: into-scalar-multiple-elements
}

pub fn corpus_perplexity(logits: Tensor<3>, targets: Tensor<2, Int>) -> f32 {
    let log_probs = log_softmax(logits, 2);
    let picked = log_probs.gather(2, targets.unsqueeze_dim::<3>(2));
    picked.neg().mean().exp().into_scalar::<f32>() // ok (one element)
}

/// Probes run by the evaluation binary.
pub fn probe(device: &Device) {
    let model = GptConfig::sized(ModelSize::Micro).init(device);

    // Heads of the Micro preset, then of a preset trained with another width.
    let x = Tensor::<3>::zeros([BATCH, CONTEXT, D_MODEL], device);
    let _micro = split_heads(x.clone(), N_HEADS);
    let _mini = split_heads(x, heads_for(ModelSize::Mini));

    // Learned positions added to a 16-token prompt.
    let tokens = EmbeddingConfig::new(VOCAB, D_MODEL).init(device);
    let positions = EmbeddingConfig::new(CONTEXT, D_MODEL).init(device);
    let prompt = Tensor::<2, Int>::zeros([BATCH, 16], device);
    let x = tokens.forward(prompt);
    let fitted = x.clone() + positions.weight.val().narrow(0, 0, 16).unsqueeze::<3>(); // ok
    let _whole = x + positions.weight.val().unsqueeze::<3>(); // expect: binary-op-incompatible-shapes

    // Tied output head written by hand.
    let _logits = fitted.matmul(tokens.weight.val().unsqueeze::<3>()); // expect: matmul-inner-dim-mismatch

    // One decoding step appended to the cached keys of an 8-token prompt.
    let head_dim = D_MODEL / N_HEADS;
    let past = Tensor::<4>::zeros([1, N_HEADS, 8, head_dim], device);
    let step = Tensor::<3>::zeros([1, 1, D_MODEL], device).reshape([1, 1, N_HEADS, head_dim]);
    let _grown = Tensor::cat(vec![past.clone(), step.clone().swap_dims(1, 2)], 2); // ok
    let _stale = Tensor::cat(vec![past, step], 2); // expect: cat-mismatched-shapes

    // Sampling over the whole vocabulary.
    let last = Tensor::<2>::zeros([BATCH, VOCAB], device);
    let _default = Sampler::default().filter(last.clone());
    let _all = Sampler::keep_all().filter(last);

    let logits = Tensor::<3>::zeros([BATCH, CONTEXT, VOCAB], device);
    let targets = Tensor::<2, Int>::zeros([BATCH, CONTEXT], device);
    let _ppl = perplexity(logits.clone(), targets.clone());
    let _corpus = corpus_perplexity(logits.clone(), targets);
    let _next = model.next_token_logits(logits);

    let counts = TokenCounts { counts: vec![3; VOCAB] };
    let _common = counts.topk(Sampler::KEEP_ALL); // ok (the crate's own topk)
}

//! A GRU encoder / attention decoder for short summaries: token embeddings, sinusoidal
//! positions, Luong dot-product attention with a padding mask, teacher forcing and beam pruning.

use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, Gru, GruConfig, Linear, LinearConfig,
    PositionalEncoding, PositionalEncodingConfig,
};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, softmax};

use crate::hparams::{
    BEAM_WIDTH, EMBED_DIM, HIDDEN_DIM, MAX_SOURCE_LEN, MAX_TARGET_LEN, VOCAB_SIZE,
};

#[derive(Config, Debug)]
pub struct Seq2SeqConfig {
    pub vocab_size: usize,
    #[config(default = 128)]
    pub d_embed: usize,
    #[config(default = 256)]
    pub d_hidden: usize,
    /// Append a one-wide "copied from the source" flag to every input embedding.
    #[config(default = false)]
    pub copy_flag: bool,
}

#[derive(Module, Debug)]
pub struct Seq2Seq {
    embed: Embedding,
    positions: PositionalEncoding,
    encoder: Gru,
    decoder: Gru,
    attn_out: Linear,
    project: Linear,
}

impl Seq2SeqConfig {
    pub fn init(&self, device: &Device) -> Seq2Seq {
        let d_input = if self.copy_flag { self.d_embed + 1 } else { self.d_embed };
        Seq2Seq {
            embed: EmbeddingConfig::new(self.vocab_size, self.d_embed).init(device),
            positions: PositionalEncodingConfig::new(d_input).init(device), // expect: positional-encoding-d-model-even
            encoder: GruConfig::new(d_input, self.d_hidden, true).init(device),
            decoder: GruConfig::new(d_input, self.d_hidden, true).init(device),
            attn_out: LinearConfig::new(2 * self.d_hidden, self.d_hidden).init(device),
            project: LinearConfig::new(self.d_hidden, self.vocab_size).init(device),
        }
    }
}

impl Seq2Seq {
    /// tokens `[batch, src_len]` -> encoder states `[batch, src_len, d_hidden]`
    pub fn encode(&self, tokens: Tensor<2, Int>) -> Tensor<3> {
        let x = self.embed.forward(tokens);
        let x = self.positions.forward(x);
        self.encoder.forward(x, None)
    }

    /// Luong dot attention of the decoder states over the encoder states.
    fn attend(&self, query: Tensor<3>, memory: Tensor<3>, pad: Tensor<2, Bool>) -> Tensor<3> {
        let scores = query.matmul(memory.clone().swap_dims(1, 2)); // ok (keys transposed)
        let scores = scores.mask_fill(pad.unsqueeze_dim(1), -1.0e4);
        let weights = softmax(scores, 2);
        weights.matmul(memory) // ok ([b, 1, s] x [b, s, h])
    }

    /// One decoder step: returns the log-probabilities `[batch, vocab]` and the new state.
    fn decode_step(
        &self,
        token: Tensor<2, Int>,
        state: Tensor<2>,
        memory: Tensor<3>,
        pad: Tensor<2, Bool>,
    ) -> (Tensor<2>, Tensor<2>) {
        let x = self.embed.forward(token);
        let out = self.decoder.forward(x, Some(state));
        let context = self.attend(out.clone(), memory, pad);
        let joined = Tensor::cat(vec![out, context], 2); // ok (both [b, 1, d_hidden])
        let h = self.attn_out.forward(joined).tanh().squeeze_dim::<2>(1); // ok
        let logits = self.project.forward(h.clone());
        (log_softmax(logits, 1), h)
    }
}

/// The shapes of one attention step, printed by `examples/shapes.rs`.
pub fn attention_walkthrough(device: &Device) {
    let model = Seq2SeqConfig::new(VOCAB_SIZE).init(device);
    let tokens = Tensor::<2, Int>::zeros([2, 12], device);
    let embedded = model.embed.forward(tokens);
    let memory = model.encoder.forward(embedded, None);
    let last = memory.clone().narrow(1, 11, 1); // ok (the last of 12 steps)

    let scores = last.clone().matmul(memory.clone()); // expect: matmul-inner-dim-mismatch
    let scores = last.clone().matmul(memory.clone().swap_dims(1, 2)); // ok
    let weights = softmax(scores, 2);

    let flat = weights.clone().squeeze_dim::<2>(2); // expect: squeeze-dim-not-one
    let flat = weights.clone().squeeze_dim::<2>(1); // ok
    println!("attention over the source: {flat}");

    let context = weights.matmul(memory.clone()); // ok ([2, 1, 12] x [2, 12, 256])
    let heads = memory.clone().reshape([2, 12, 2, HIDDEN_DIM]); // expect: reshape-incompatible-shape
    let heads = memory.reshape([2, 12, 2, HIDDEN_DIM / 2]); // ok
    println!("two heads: {:?}", heads.dims());

    let step = model.embed.forward(Tensor::<2, Int>::zeros([2, 1], device));
    let rnn_input = Tensor::cat(vec![step.clone(), context.clone()], 1); // expect: cat-mismatched-shapes
    let rnn_input = Tensor::cat(vec![step, context], 2); // ok
    println!("decoder input: {:?}", rnn_input.dims());
}

/// Teacher forcing over a fixed-length target batch.
pub fn teacher_forcing_loss(model: &Seq2Seq, device: &Device) -> Tensor<1> {
    let source = Tensor::<2, Int>::ones([4, 20], device);
    let targets = Tensor::<2, Int>::ones([4, MAX_TARGET_LEN], device);
    let pad = source.clone().equal_elem(0);
    let memory = model.encode(source);
    let mut state = memory.clone().narrow(1, 19, 1).squeeze_dim::<2>(1); // ok
    let mut total = Tensor::<1>::zeros([1], device);
    for t in 0..=MAX_TARGET_LEN {
        let token = targets.clone().narrow(1, t, 1); // expect: narrow-out-of-range
        let (log_probs, next) = model.decode_step(token.clone(), state, memory.clone(), pad.clone());
        total = total - log_probs.gather(1, token).mean();
        state = next;
    }
    total / MAX_TARGET_LEN as f32
}

/// Greedy decoding: the prefix grows by one token per step.
pub fn greedy_prefixes(device: &Device) -> Vec<Tensor<2, Int>> {
    let generated = Tensor::<2, Int>::zeros([1, MAX_TARGET_LEN], device);
    let mut prefixes = Vec::new();
    for t in 0..MAX_TARGET_LEN {
        prefixes.push(generated.clone().narrow(1, 0, t + 1)); // ok
    }
    prefixes
}

/// Keep the best continuations of every hypothesis.
pub fn prune_beams(device: &Device, greedy: bool) {
    let project = LinearConfig::new(HIDDEN_DIM, VOCAB_SIZE).init(device);
    let hidden = Tensor::<2>::zeros([2, HIDDEN_DIM], device);
    let log_probs = log_softmax(project.forward(hidden), 1);

    let best = log_probs.clone().topk(BEAM_WIDTH, 0); // expect: topk-k-out-of-range
    let best = log_probs.clone().topk(BEAM_WIDTH, 1); // ok
    let k = if greedy { 1 } else { 2 };
    let kept = log_probs.topk(k, 0); // ok (both arms fit the batch of 2)
    println!("{best} {kept}");
}

/// Word dropout on the inputs and dropout on the attention output.
pub fn regularizers() -> (Dropout, Dropout) {
    let drop = |p: f64| DropoutConfig::new(p).init(); // expect: dropout-probability-range
    let word = drop(0.25);
    let attention = drop(10.0);
    (word, attention)
}

/// Positions for long-document sources.
pub fn long_document_positions(device: &Device) -> (PositionalEncoding, PositionalEncoding) {
    let naive = PositionalEncodingConfig::new(EMBED_DIM).with_max_sequence_size(MAX_SOURCE_LEN).init(device); // expect: positional-encoding-timescale-below-length
    let scaled = PositionalEncodingConfig::new(EMBED_DIM).with_max_sequence_size(MAX_SOURCE_LEN).with_max_timescale(2 * MAX_SOURCE_LEN).init(device); // ok
    (naive, scaled)
}

/// The model sizes a user can choose on the command line.
pub fn build_from_args(device: &Device) -> (Seq2Seq, PositionalEncoding, Seq2Seq) {
    let d_model: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(128);
    let positions = PositionalEncodingConfig::new(d_model).init(device); // ok (d_model from the command line)
    let plain = Seq2SeqConfig::new(VOCAB_SIZE).init(device);
    let with_copy = Seq2SeqConfig::new(VOCAB_SIZE).with_copy_flag(true).init(device);
    (plain, positions, with_copy)
}

/// Encoder states of the caller's batch, and its last step.
pub fn last_state(model: &Seq2Seq, tokens: Tensor<2, Int>) -> Tensor<3> {
    let [_, len] = tokens.dims();
    let memory = model.encode(tokens);
    memory.narrow(1, len - 1, 1) // ok (len comes with the batch)
}

/// Host-side hypotheses, ranked by score.
struct Beam {
    scores: Vec<f32>,
}

impl Beam {
    fn topk(mut self, k: usize, _dim: usize) -> Self {
        self.scores.sort_by(|a, b| b.total_cmp(a));
        self.scores.truncate(k);
        self
    }
}

pub fn best_hypotheses() -> Vec<f32> {
    let beam = Beam { scores: vec![-1.5, -0.25] }.topk(16, 0); // ok (the crate's own Beam::topk)
    beam.scores
}

//! Recurrent sequence models: an embedding, an LSTM encoder and a GRU running backwards,
//! time steps taken by `narrow`/`split`, Luong attention by `matmul`, greedy (`argmax`) and
//! beam (`topk`, `gather`, `select`) decoding, and decoder states repeated or expanded per beam.

use burn::module::Initializer;
use burn::nn::{Embedding, EmbeddingConfig, Gru, GruConfig, Linear, LinearConfig, Lstm, LstmConfig};
use burn::prelude::*;
use burn::tensor::backend::Backend;

pub mod consts {
    pub const VOCAB: usize = 5000;
    pub const EMBED: usize = 64;
    pub const HIDDEN: usize = 128;
    pub const SEQ_LEN: usize = 20;
    pub const BATCH: usize = 4;
    pub const BEAM_WIDTH: usize = 8;
}

use consts::*;

#[derive(Config, Debug)]
pub struct Seq2SeqConfig {
    #[config(default = 5000)]
    pub vocab_size: usize,
    #[config(default = 64)]
    pub d_embed: usize,
    #[config(default = 128)]
    pub d_hidden: usize,
    #[config(default = "Initializer::Normal { mean: 0.0, std: 0.02 }")]
    pub embed_init: Initializer,
}

#[derive(Module, Debug)]
pub struct Seq2Seq<B: Backend> {
    embedding: Embedding<B>,
    encoder: Lstm<B>,
    decoder: Gru<B>,
    output: Linear<B>,
}

impl Seq2SeqConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Seq2Seq<B> {
        Seq2Seq {
            embedding: EmbeddingConfig::new(self.vocab_size, self.d_embed)
                .with_initializer(self.embed_init.clone())
                .init(device), // ok (a normal initializer by default)
            encoder: LstmConfig::new(self.d_embed, self.d_hidden, true).init(device),
            decoder: GruConfig::new(self.d_embed, self.d_hidden, true).init(device),
            output: LinearConfig::new(self.d_hidden, self.vocab_size).init(device),
        }
    }
}

impl<B: Backend> Seq2Seq<B> {
    /// Greedy decoding of the next token for each sequence of the caller's batch.
    pub fn forward(&self, tokens: Tensor<B, 2, Int>) -> Tensor<B, 1, Int> {
        let [_, seq_len] = tokens.dims();
        let embedded = self.embedding.forward(tokens);
        let (encoded, _state) = self.encoder.forward(embedded.clone(), None);
        let decoded = self.decoder.forward(embedded, None);
        let last = (encoded + decoded).narrow(1, seq_len - 1, 1).squeeze_dim::<2>(1); // ok
        self.output.forward(last).argmax(1).squeeze_dim::<1>(1) // ok
    }

    /// Beam candidates for the caller's beam width.
    pub fn candidates(&self, logits: Tensor<B, 2>, beam_width: usize) -> Tensor<B, 2> {
        logits.topk(beam_width, 1) // ok (the width comes from the caller)
    }
}

pub fn model<B: Backend>(device: &B::Device) -> Seq2Seq<B> {
    Seq2SeqConfig::new().init(device)
}

// ---------------------------------------------------------------------------------------------
// Initializers tried in the ablation.
// ---------------------------------------------------------------------------------------------

/// "He init everywhere".
pub fn he_embedding<B: Backend>(device: &B::Device) -> (Tensor<B, 3>, Linear<B>) {
    let init = Initializer::KaimingUniform { gain: 1.0, fan_out_only: false };
    let embedding = EmbeddingConfig::new(VOCAB, EMBED).with_initializer(init.clone()).init::<B>(device); // expect: initializer-kaiming-without-fan
    let head = LinearConfig::new(HIDDEN, VOCAB).with_initializer(init).init::<B>(device); // ok (Linear passes its fans)
    let tokens = Tensor::<B, 2, Int>::zeros([BATCH, SEQ_LEN], device);
    (embedding.forward(tokens), head)
}

/// Orthogonal recurrent projections, with and without their bias.
pub fn orthogonal_projections<B: Backend>(device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 2>) {
    let init = Initializer::Orthogonal { gain: 1.0 };
    let with_bias = LinearConfig::new(HIDDEN, HIDDEN).with_initializer(init.clone()).init::<B>(device); // expect: initializer-orthogonal-rank-below-2
    let without_bias = LinearConfig::new(HIDDEN, HIDDEN)
        .with_initializer(init)
        .with_bias(false)
        .init::<B>(device); // ok
    let x = Tensor::<B, 2>::ones([BATCH, HIDDEN], device);
    (with_bias.forward(x.clone()), without_bias.forward(x))
}

// ---------------------------------------------------------------------------------------------
// The encoder on a fixed batch.
// ---------------------------------------------------------------------------------------------

pub fn encode_probe<B: Backend>(device: &B::Device) -> Vec<Tensor<B, 3>> {
    let embedding = EmbeddingConfig::new(VOCAB, EMBED).init::<B>(device);
    let lstm = LstmConfig::new(EMBED, HIDDEN, true).init::<B>(device);
    let gru = GruConfig::new(EMBED, HIDDEN / 2, true).init::<B>(device);

    let tokens = Tensor::<B, 1, Int>::arange(0..(BATCH * SEQ_LEN) as i64, device).reshape([BATCH, SEQ_LEN]); // ok
    let embedded = embedding.forward(tokens);
    let (outputs, _state) = lstm.forward(embedded.clone(), None);
    let backward = gru.forward(embedded.flip([1]), None); // ok

    let both = Tensor::cat(vec![outputs.clone(), backward.clone()], 2); // ok
    let time_major = Tensor::cat(vec![outputs.clone(), backward], 1); // expect: cat-mismatched-shapes

    let last = outputs.clone().narrow(1, SEQ_LEN - 1, 1); // ok
    let after_last = outputs.clone().narrow(1, SEQ_LEN, 1); // expect: narrow-out-of-range
    let reversed = outputs.clone().flip([1, -2]); // expect: flip-duplicate-axes

    // Luong attention of the last state over every step
    let scores = last.clone().matmul(outputs.clone().swap_dims(1, 2)); // ok
    let unswapped = last.matmul(outputs.clone()); // expect: matmul-inner-dim-mismatch

    vec![both, time_major, after_last, reversed, scores, unswapped]
}

pub fn step_chunks<B: Backend>(device: &B::Device) -> (Vec<Tensor<B, 3>>, Vec<Tensor<B, 3>>) {
    let outputs = Tensor::<B, 3>::zeros([BATCH, SEQ_LEN, HIDDEN], device);
    let halves = outputs.clone().split(SEQ_LEN / 2, 1); // ok
    let thirty_seconds = outputs.split(SEQ_LEN / 32, 1); // expect: split-size-zero
    (halves, thirty_seconds)
}

// ---------------------------------------------------------------------------------------------
// Decoding.
// ---------------------------------------------------------------------------------------------

pub fn decode_probe<B: Backend>(device: &B::Device) -> Vec<Tensor<B, 2>> {
    let lstm = LstmConfig::new(EMBED, HIDDEN, true).init::<B>(device);
    let head = LinearConfig::new(HIDDEN, VOCAB).init::<B>(device);
    let inputs = Tensor::<B, 3>::zeros([BATCH, SEQ_LEN, EMBED], device);
    let (outputs, state) = lstm.forward(inputs, None);

    let last = outputs.narrow(1, SEQ_LEN - 1, 1); // ok
    let last_vec = last.clone().squeeze_dim::<2>(1); // ok
    let wrong_axis = last.squeeze_dim::<2>(0); // expect: squeeze-dim-not-one

    let logits = head.forward(last_vec);
    let greedy = logits.clone().argmax(1).squeeze_dim::<1>(1); // ok
    let (candidates, indices) = logits.clone().topk_with_indices(BEAM_WIDTH, 1); // ok
    let per_batch = logits.clone().topk(BEAM_WIDTH, 0); // expect: topk-k-out-of-range
    let scores = logits.gather(1, indices); // ok

    // one decoder state per beam
    let hidden = state.hidden;
    let per_beam = hidden.clone().unsqueeze_dim::<3>(1).expand([BATCH, BEAM_WIDTH, HIDDEN]); // ok
    let leading = hidden.clone().unsqueeze_dim::<3>(0).expand([BATCH, BEAM_WIDTH, HIDDEN]); // expect: expand-incompatible-shape (miss: the hidden field of the LstmState returned by the Lstm forward has no known shape)
    let flat_beams = hidden.repeat_dim(0, BEAM_WIDTH); // ok
    let survivors = Tensor::<B, 1, Int>::arange(0..BATCH as i64, device);
    let kept = flat_beams.select(0, survivors); // ok

    let _ = (greedy, per_beam, leading);
    vec![candidates, per_batch, scores, kept, wrong_axis]
}

/// The crate's own beam, named like burn's op.
pub struct Beam {
    pub scores: Vec<f32>,
}

impl Beam {
    pub fn topk(&self, k: usize) -> Vec<f32> {
        let mut sorted = self.scores.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        sorted.truncate(k);
        sorted
    }
}

pub fn best_hypotheses() -> Vec<f32> {
    let beam = Beam { scores: vec![0.1, 0.5, 0.2] };
    beam.topk(BEAM_WIDTH) // ok (the crate's own topk)
}

#[cfg(test)]
mod tests {
    use super::*;
    type TestBackend = burn::backend::NdArray;

    #[test]
    #[should_panic]
    fn squeezing_the_time_axis_of_a_sequence_panics() {
        let device = Default::default();
        let outputs = Tensor::<TestBackend, 3>::zeros([BATCH, SEQ_LEN, HIDDEN], &device);
        let _ = outputs.squeeze_dim::<2>(1); // ok (a #[should_panic] test)
    }
}

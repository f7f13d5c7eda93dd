//! Self-attention as people write it by hand: the heads split by `reshape` with
//! `d_model / n_heads` and `swap_dims`, scores against the transposed keys, the heads joined
//! back; rotary halves by `narrow`; an encoder whose blocks are built in `init` from a config the
//! top config makes. The batch and the sequence length come at run time.
use burn::nn::{
    Dropout, DropoutConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig, PositionalEncoding,
    PositionalEncodingConfig, RotaryEncoding, RotaryEncodingConfig,
};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::softmax;

const D_MODEL: usize = 96;
const N_HEADS: usize = 8;
const HEAD_DIM: usize = D_MODEL / N_HEADS;

#[derive(Module, Debug)]
pub struct SelfAttention {
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    dropout: Dropout,
    n_heads: usize,
    head_dim: usize,
}

impl SelfAttention {
    pub fn new(device: &Device) -> Self {
        Self {
            query: LinearConfig::new(D_MODEL, D_MODEL).init(device),
            key: LinearConfig::new(D_MODEL, D_MODEL).init(device),
            value: LinearConfig::new(D_MODEL, D_MODEL).init(device),
            output: LinearConfig::new(D_MODEL, D_MODEL).init(device),
            dropout: DropoutConfig::new(0.1).init(),
            n_heads: N_HEADS,
            head_dim: HEAD_DIM,
        }
    }

    /// [batch, seq, d_model] -> [batch, n_heads, seq, head_dim]
    fn split_heads(&self, x: Tensor<3>) -> Tensor<4> {
        let [batch_size, seq_len, _] = x.dims();
        x.reshape([batch_size, seq_len, self.n_heads, self.head_dim]).swap_dims(1, 2) // ok
    }

    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let [batch_size, seq_len, d_model] = x.dims();
        let q = self.split_heads(self.query.forward(x.clone()));
        let k = self.split_heads(self.key.forward(x.clone()));
        let v = self.split_heads(self.value.forward(x));
        let scores = q.matmul(k.transpose()) / (self.head_dim as f32).sqrt(); // ok
        let weights = self.dropout.forward(softmax(scores, 3));
        let context = weights.matmul(v).swap_dims(1, 2); // ok
        let context = context.reshape([batch_size, seq_len, d_model]); // ok
        self.output.forward(context)
    }

    /// Scores with the keys' heads swapped in the wrong axes, and with untransposed keys.
    pub fn scores(&self, x: Tensor<3>) -> Vec<Tensor<4>> {
        let q = self.split_heads(self.query.forward(x.clone()));
        let k = self.split_heads(self.key.forward(x));
        let wrong_axes = q.clone().matmul(k.clone().swap_dims(1, 2)); // expect: matmul-inner-dim-mismatch
        let untransposed = q.clone().matmul(k.clone()); // ok (the sequence length comes at run time)
        let right = q.matmul(k.swap_dims(2, 3)); // ok
        vec![wrong_axes, untransposed, right]
    }

    /// Rotary embedding by hand: the two halves of each head.
    pub fn rotate_half(&self, x: Tensor<3>) -> Tensor<4> {
        let q = self.split_heads(self.query.forward(x));
        let half = HEAD_DIM / 2;
        let x1 = q.clone().narrow(3, 0, half); // ok
        let x2 = q.clone().narrow(3, half, half); // ok
        let x3 = q.narrow(3, half, HEAD_DIM); // expect: narrow-out-of-range
        Tensor::cat(vec![x2.neg(), x1, x3], 3)
    }
}

/// A head split written as a free function; its callers give the tensor and the head count.
fn split(x: Tensor<3>, n_heads: usize) -> Tensor<4> {
    let [batch_size, seq_len, d_model] = x.dims();
    x.reshape([batch_size, seq_len, n_heads, d_model / n_heads]) // expect: reshape-incompatible-shape
}

pub fn heads(device: &Device) -> Vec<Tensor<4>> {
    let x = Tensor::<3>::random([2, 16, D_MODEL], Distribution::Default, device);
    vec![split(x.clone(), N_HEADS), split(x.clone(), 12), split(x, 7)]
}

/// The same split of a run-time tensor: nothing is known.
pub fn heads_of(x: Tensor<3>) -> Tensor<4> {
    split(x, 7)
}

#[derive(Config, Debug)]
pub struct BlockConfig {
    d_model: usize,
    n_heads: usize,
    #[config(default = 512)]
    max_seq_len: usize,
    #[config(default = 0.1)]
    dropout: f64,
}

#[derive(Module, Debug)]
pub struct Block {
    rope: RotaryEncoding,
    norm: LayerNorm,
    dropout: Dropout,
}

impl BlockConfig {
    pub fn init(&self, device: &Device) -> Block {
        let head_dim = self.d_model / self.n_heads;
        Block {
            rope: RotaryEncodingConfig::new(self.max_seq_len, head_dim).init(device), // expect: rotary-encoding-d-model-even
            norm: LayerNormConfig::new(self.d_model).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // ok
        }
    }
}

#[derive(Config, Debug)]
pub struct EncoderConfig {
    d_model: usize,
    n_heads: usize,
    n_layers: usize,
}

#[derive(Module, Debug)]
pub struct Encoder {
    pos: PositionalEncoding,
    blocks: Vec<Block>,
}

impl EncoderConfig {
    pub fn init(&self, device: &Device) -> Encoder {
        Encoder {
            pos: PositionalEncodingConfig::new(self.d_model).init(device), // ok
            blocks: (0..self.n_layers)
                .map(|_| BlockConfig::new(self.d_model, self.n_heads).init(device))
                .collect(),
        }
    }
}

/// 72 / 8 = 9: each head's rotary width is odd.
pub fn encoders(device: &Device) -> (Encoder, Encoder) {
    (EncoderConfig::new(64, 8, 4).init(device), EncoderConfig::new(72, 8, 4).init(device))
}

/// Widths from the command line: nothing is known.
pub fn encoder_from(d_model: usize, n_heads: usize, device: &Device) -> Encoder {
    EncoderConfig::new(d_model, n_heads, 2).init(device)
}

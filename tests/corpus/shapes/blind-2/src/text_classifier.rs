//! A small transformer text classifier: token embedding, sinusoidal positions, one
//! self-attention block written by hand, mean pooling over the sequence and a linear head.
//! Plus the probes run before a sweep and the evaluation metrics.
use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig};
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear,
    LinearConfig, PositionalEncoding, PositionalEncodingConfig,
};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::softmax;

use crate::hparams::{
    BATCH_SIZE, D_MODEL, LABEL_SMOOTHING, MAX_SEQ_LEN, N_CLASSES, N_HEADS, VOCAB_SIZE,
};

#[derive(Config, Debug)]
pub struct TextClassifierConfig {
    pub d_model: usize,
    pub n_heads: usize,
    pub n_classes: usize,
    #[config(default = 8000)]
    pub vocab_size: usize,
    #[config(default = 128)]
    pub max_len: usize,
    #[config(default = 0.1)]
    pub dropout: f64,
}

#[derive(Module, Debug)]
pub struct TextClassifier {
    embedding: Embedding,
    positions: PositionalEncoding,
    qkv: Linear,
    out_proj: Linear,
    norm: LayerNorm,
    dropout: Dropout,
    head: Linear,
    n_heads: usize,
}

impl TextClassifierConfig {
    pub fn init(&self, device: &Device) -> TextClassifier {
        TextClassifier {
            embedding: EmbeddingConfig::new(self.vocab_size, self.d_model).init(device),
            positions: PositionalEncodingConfig::new(self.d_model).with_max_sequence_size(self.max_len).init(device), // ok
            qkv: LinearConfig::new(self.d_model, 3 * self.d_model).init(device),
            out_proj: LinearConfig::new(self.d_model, self.d_model).init(device),
            norm: LayerNormConfig::new(self.d_model).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // expect: dropout-probability-range
            head: LinearConfig::new(self.d_model, self.n_classes).init(device),
            n_heads: self.n_heads,
        }
    }
}

/// `[batch, seq, d_model]` to `[batch, n_heads, seq, d_model / n_heads]`.
fn split_heads(x: Tensor<3>, n_heads: usize) -> Tensor<4> {
    let [batch, seq, d_model] = x.dims();
    x.reshape([batch, seq, n_heads, d_model / n_heads]).swap_dims(1, 2) // expect: reshape-incompatible-shape
}

impl TextClassifier {
    /// Token ids `[batch, seq]` to class logits `[batch, n_classes]`.
    pub fn forward(&self, tokens: Tensor<2, Int>) -> Tensor<2> {
        let [batch, seq] = tokens.dims();
        let x = self.positions.forward(self.embedding.forward(tokens));
        let [_, _, d_model] = x.dims();

        let qkv = self.qkv.forward(x.clone()).chunk(3, 2);
        let q = split_heads(qkv[0].clone(), self.n_heads);
        let k = split_heads(qkv[1].clone(), self.n_heads);
        let v = split_heads(qkv[2].clone(), self.n_heads);

        let scale = ((d_model / self.n_heads) as f64).sqrt();
        let scores = q.matmul(k.swap_dims(2, 3)) / scale; // ok
        let weights = softmax(scores, 3);
        let context = weights.matmul(v).swap_dims(1, 2).reshape([batch, seq, d_model]); // ok

        let x = self.norm.forward(x + self.out_proj.forward(context)); // ok
        let pooled = x.mean_dim(1).squeeze_dim::<2>(1); // ok
        self.head.forward(self.dropout.forward(pooled))
    }
}

pub fn base_model(device: &Device) -> TextClassifier {
    TextClassifierConfig::new(D_MODEL, N_HEADS, N_CLASSES).with_vocab_size(VOCAB_SIZE).init(device)
}

/// The wider model from the sweep; the sweep sheet lists dropout in percent.
pub fn wide_model(device: &Device) -> TextClassifier {
    let config = TextClassifierConfig::new(2 * D_MODEL, 8, N_CLASSES).with_dropout(10.0);
    config.init(device)
}

/// Positions for the distilled model: 3 heads of 25 dims.
pub fn distilled_positions(device: &Device) -> PositionalEncoding {
    let head_dim = 25;
    let d_model = 3 * head_dim;
    PositionalEncodingConfig::new(d_model).with_max_sequence_size(MAX_SEQ_LEN).init(device) // expect: positional-encoding-d-model-even
}

/// The same model padded to an even width for the fused kernels.
pub fn padded_positions(device: &Device) -> PositionalEncoding {
    let d_model = 3 * 25;
    let d_model = d_model + 1;
    PositionalEncodingConfig::new(d_model).with_max_sequence_size(MAX_SEQ_LEN).init(device) // ok
}

/// Attention shapes on random activations, checked before a long run.
pub fn probe_attention(device: &Device) {
    let x = Tensor::<3>::random([BATCH_SIZE, MAX_SEQ_LEN, D_MODEL], Distribution::Normal(0.0, 1.0), device);
    let q = split_heads(x.clone(), N_HEADS); // [8, 4, 32, 16]
    let k = split_heads(x.clone(), N_HEADS);

    let scores = q.clone().matmul(k.clone().swap_dims(2, 3)); // ok
    let unswapped = q.matmul(k); // expect: matmul-inner-dim-mismatch
    println!("{:?} {:?}", scores.dims(), unswapped.dims());

    for heads in [2, 4, 6, 8] {
        let per_head = split_heads(x.clone(), heads);
        println!("{heads} heads: {:?}", per_head.dims());
    }
}

/// Inverse-frequency class weights; class 4 ("other") is left out of the loss.
pub fn weighted_loss(device: &Device) -> CrossEntropyLoss {
    CrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 2.5, 1.2, 3.0, 0.0])).init(device) // expect: cross-entropy-weights-positive
}

pub fn smoothed_loss(device: &Device) -> CrossEntropyLoss {
    CrossEntropyLossConfig::new().with_smoothing(Some(LABEL_SMOOTHING)).init(device) // ok
}

pub fn rebalanced_loss(device: &Device) -> CrossEntropyLoss {
    CrossEntropyLossConfig::new().with_weights(Some(vec![1.0, 2.5, 1.2, 3.0, 0.2])).init(device) // ok
}

/// Top-k over a plain score list, for the CLI's "did you mean" hints.
fn topk(scores: &[f32], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    order.truncate(k);
    order
}

/// Metrics of a fresh head on random pooled features.
pub fn probe_metrics(device: &Device) {
    let head = LinearConfig::new(D_MODEL, N_CLASSES).init(device);
    let pooled = Tensor::<2>::random([BATCH_SIZE, D_MODEL], Distribution::Default, device);
    let logits = head.forward(pooled); // [8, 5]

    let top3 = logits.clone().topk(3, 1); // ok
    let top10 = logits.clone().topk(10, 1); // expect: topk-k-out-of-range
    let k: usize = std::env::var("TOPK").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let top_cli = logits.clone().topk(k, 1); // ok (k comes from the environment)
    let hints = topk(&[0.1, 0.7, 0.2], 10); // ok

    let labels = vec![0i64, 1, 2, 3, 4, 0, 1, 2];
    let targets = Tensor::<1, Int>::from_data(TensorData::new(labels, [BATCH_SIZE]), device); // ok
    let loss = smoothed_loss(device).forward(logits.clone(), targets.clone());
    let loss_value: f32 = loss.into_scalar(); // ok

    let predictions = logits.argmax(1).squeeze_dim::<1>(1); // ok
    let n_correct: i64 = predictions.clone().equal(targets.clone()).int().sum().into_scalar(); // ok
    let correct: i64 = predictions.equal(targets).int().into_scalar(); // expect: into-scalar-multiple-elements
    println!(
        "{:?} {:?} {:?} {hints:?} {loss_value} {n_correct} {correct}",
        top3.dims(),
        top10.dims(),
        top_cli.dims()
    );
}

/// Accuracy of a batch from the data loader.
pub fn accuracy(logits: Tensor<2>, targets: Tensor<1, Int>) -> f32 {
    let [batch, _] = logits.dims();
    let predictions = logits.argmax(1).squeeze_dim::<1>(1); // ok
    let correct: i64 = predictions.equal(targets).int().sum().into_scalar(); // ok
    correct as f32 / batch as f32
}

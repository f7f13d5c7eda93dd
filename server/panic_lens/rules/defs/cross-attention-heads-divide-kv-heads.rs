// Decoder cross-attending to an image encoder with grouped-query attention.
use burn::nn::attention::{CrossAttention, CrossAttentionConfig, MultiHeadAttentionConfig};
use burn::prelude::*;

const N_HEADS: usize = 12;
const N_KV_HEADS: usize = 5;

struct CrossAttentionConfigLocal {
    n_heads: usize,
    n_heads_kv: usize,
}

impl CrossAttentionConfigLocal {
    fn new(_d_model: usize, _d_context: usize, n_heads: usize, n_heads_kv: usize, _d_head: usize) -> Self {
        Self { n_heads, n_heads_kv }
    }
    fn init(&self) -> usize {
        self.n_heads * self.n_heads_kv
    }
}

pub fn cross_layers(device: &Device, kv_heads: usize) -> Vec<CrossAttention> {
    let gqa = CrossAttentionConfig::new(512, 768, 8, 2, 64).init(device); // ok
    let mqa = CrossAttentionConfig::new(512, 768, 8, 1, 64).init(device); // ok
    let bad = CrossAttentionConfig::new(512, 768, 8, 3, 64).init(device); // expect: cross-attention-heads-divide-kv-heads
    let swapped = CrossAttentionConfig::new(512, 768, 2, 8, 64).with_dropout(0.0).init(device); // expect: cross-attention-heads-divide-kv-heads
    let runtime = CrossAttentionConfig::new(512, 768, 8, kv_heads, 64).init(device); // ok
    let cfg = CrossAttentionConfig::new(768, 768, N_HEADS, N_KV_HEADS, 64);
    let consts = cfg.init(device); // expect: cross-attention-heads-divide-kv-heads
    vec![gqa, mqa, bad, swapped, runtime, consts]
}

pub fn look_alikes(device: &Device) -> usize {
    let _mha = MultiHeadAttentionConfig::new(768, 12).init(device); // ok
    CrossAttentionConfigLocal::new(512, 768, 8, 3, 64).init() // ok
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<CrossAttention> {
    let a = burn::nn::attention::CrossAttentionConfig::new(1024, 1024, 16, 6, 64).init(device); // expect: cross-attention-heads-divide-kv-heads
    let b = CrossAttentionConfig { n_heads_kv: 4, ..CrossAttentionConfig::new(1024, 1024, 16, 6, 64) }.init(device); // ok
    let c = CrossAttentionConfig { n_heads_kv: 7, ..CrossAttentionConfig::new(512, 512, 8, 8, 64) }.init(device); // expect: cross-attention-heads-divide-kv-heads
    vec![a, b, c]
}

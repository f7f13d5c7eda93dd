//! A Whisper-like speech recogniser: log-mel frames through two Conv1d (the second with stride
//! 2), sinusoidal positions added to the audio states, and the pieces of a text decoder whose
//! cross attention reads them (alignment weights, heads, sequence log-probabilities).

use burn::nn::attention::{CrossAttention, CrossAttentionConfig};
use burn::nn::conv::{Conv1d, Conv1dConfig};
use burn::nn::{
    Dropout, DropoutConfig, EmbeddingConfig, LayerNorm, LayerNormConfig, PaddingConfig1d,
    generate_sinusoids,
};
use burn::prelude::*;
use burn::tensor::activation::{gelu, log_softmax, softmax};

use crate::hparams::audio::{
    CHUNK_SECONDS, HOP_LENGTH, MAX_TIMESCALE, N_FRAMES, N_MELS, SAMPLE_RATE,
};
use crate::hparams::text::{HEAD_DIM, N_VOCAB, SOT_SEQUENCE};

/// The sizes of the released checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhisperSize {
    Tiny,
    Base,
    Small,
}

impl WhisperSize {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "tiny" => Some(Self::Tiny),
            "base" => Some(Self::Base),
            "small" => Some(Self::Small),
            _ => None,
        }
    }
}

/// Widths of one size.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub d_model: usize,
    pub n_heads: usize,
}

impl From<WhisperSize> for Dims {
    fn from(size: WhisperSize) -> Self {
        let n_heads = match size {
            WhisperSize::Tiny => 6,
            WhisperSize::Base => 8,
            WhisperSize::Small => 12,
        };
        Dims {
            d_model: n_heads * HEAD_DIM,
            n_heads,
        }
    }
}

/// Frames of mel spectrogram in `seconds` of audio.
const fn frames_in(seconds: usize) -> usize {
    seconds * SAMPLE_RATE / HOP_LENGTH
}

/// The two convolutions in front of the encoder.
#[derive(Module, Debug)]
pub struct AudioStem {
    conv1: Conv1d,
    conv2: Conv1d,
}

impl AudioStem {
    pub fn new(size: WhisperSize, device: &Device) -> Self {
        let Dims { d_model, .. } = Dims::from(size);
        let padding = PaddingConfig1d::Explicit(1, 1);
        Self {
            conv1: Conv1dConfig::new(N_MELS, d_model, 3).with_padding(padding.clone()).init(device),
            conv2: Conv1dConfig::new(d_model, d_model, 3).with_stride(2).with_padding(padding).init(device),
        }
    }

    /// [batch, n_mels, frames] -> [batch, frames / 2, d_model]
    pub fn forward(&self, mel: Tensor<3>) -> Tensor<3> {
        let x = gelu(self.conv1.forward(mel));
        let x = gelu(self.conv2.forward(x));
        x.swap_dims(1, 2)
    }
}

/// The stem, a table of positions and the final norm.
#[derive(Module, Debug)]
pub struct AudioEncoder {
    stem: AudioStem,
    positions: Tensor<2>,
    ln_post: LayerNorm,
}

impl AudioEncoder {
    pub fn forward(&self, mel: Tensor<3>) -> Tensor<3> {
        let x = self.stem.forward(mel);
        let [_, frames, _] = x.dims();
        let positions = self.positions.clone().narrow(0, 0, frames); // ok (the crate's mels are one window: 1500 of 1500)
        self.ln_post.forward(x + positions.unsqueeze::<3>())
    }
}

/// Builds an encoder; the positions table covers the strided window unless told otherwise.
#[derive(Clone, Debug)]
pub struct EncoderBuilder {
    size: WhisperSize,
    n_ctx: Option<usize>,
    max_timescale: usize,
}

impl EncoderBuilder {
    pub fn new(size: WhisperSize) -> Self {
        Self {
            size,
            n_ctx: None,
            max_timescale: MAX_TIMESCALE,
        }
    }

    pub fn with_context(self, n_ctx: usize) -> Self {
        Self {
            n_ctx: Some(n_ctx),
            ..self
        }
    }

    pub fn build(&self, device: &Device) -> AudioEncoder {
        let dims = Dims::from(self.size);
        let n_ctx = self.n_ctx.unwrap_or(N_FRAMES / 2);
        AudioEncoder {
            stem: AudioStem::new(self.size, device),
            positions: generate_sinusoids(n_ctx, dims.d_model, self.max_timescale, device),
            ln_post: LayerNormConfig::new(dims.d_model).init(device),
        }
    }
}

fn size_from_args() -> Option<WhisperSize> {
    let name = std::env::args().nth(1)?;
    WhisperSize::parse(&name)
}

/// The encoder the command line asks for.
pub fn cli_encoder(device: &Device) -> Option<AudioEncoder> {
    let size = size_from_args()?;
    Some(EncoderBuilder::new(size).build(device))
}

/// One 30 s window of silence through the tiny encoder.
pub fn transcribe_window(device: &Device) -> Tensor<3> {
    let encoder = EncoderBuilder::new(WhisperSize::Tiny).with_context(N_FRAMES / 2).build(device);
    let mel = Tensor::<3>::zeros([1, N_MELS, frames_in(CHUNK_SECONDS)], device);
    encoder.forward(mel)
}

/// One group of mel bands per attention head.
fn banded_stem(size: WhisperSize, device: &Device) -> Conv1d {
    let dims: Dims = size.into();
    Conv1dConfig::new(N_MELS, dims.d_model, 3).with_groups(dims.n_heads).init(device) // expect: conv-groups-divide-channels
}

pub fn tiny_banded_stem(device: &Device) -> Conv1d {
    banded_stem(WhisperSize::Tiny, device)
}

/// Ten bands of eight mels each.
pub fn ten_band_stem(device: &Device) -> Conv1d {
    let Dims { d_model, .. } = Dims::from(WhisperSize::Tiny);
    Conv1dConfig::new(N_MELS, d_model, 3).with_groups(N_MELS / 10).init(device) // ok (8 groups divide 80 and 384)
}

/// Silence through the stem, with a position for every mel frame.
pub fn encode_silence(device: &Device) -> Tensor<3> {
    let stem = AudioStem::new(WhisperSize::Tiny, device);
    let mel = Tensor::<3>::zeros([1, N_MELS, N_FRAMES], device);
    let states = stem.forward(mel);
    let d_model = Dims::from(WhisperSize::Tiny).d_model;
    let positions = generate_sinusoids(N_FRAMES, d_model, MAX_TIMESCALE, device); // ok (3000 <= 10000, 384 is even)
    states + positions.unsqueeze::<3>() // expect: binary-op-incompatible-shapes
}

/// The same with the stride of the second convolution taken into account.
pub fn encode_silence_strided(device: &Device) -> Tensor<3> {
    let stem = AudioStem::new(WhisperSize::Tiny, device);
    let mel = Tensor::<3>::zeros([1, N_MELS, N_FRAMES], device);
    let states = stem.forward(mel);
    let positions = generate_sinusoids(N_FRAMES / 2, 384, MAX_TIMESCALE, device);
    states + positions.unsqueeze::<3>() // ok (1500 frames on both sides)
}

/// Cuts a recording to the model's 30 s window.
fn trim_to_window(mel: Tensor<3>) -> Tensor<3> {
    mel.narrow(2, 0, N_FRAMES) // expect: narrow-out-of-range
}

/// A 20 s voice note.
pub fn transcribe_voice_note(device: &Device) -> Tensor<3> {
    let mel = Tensor::<3>::zeros([1, N_MELS, frames_in(20)], device);
    let window = trim_to_window(mel);
    AudioStem::new(WhisperSize::Tiny, device).forward(window)
}

/// A full 30 s clip, cut the same way.
pub fn transcribe_full_clip(device: &Device) -> Tensor<3> {
    let mel = Tensor::<3>::zeros([1, N_MELS, frames_in(CHUNK_SECONDS)], device);
    let window = mel.narrow(2, 0, N_FRAMES);
    AudioStem::new(WhisperSize::Tiny, device).forward(window)
}

/// Splits a recording of any length into 30 s windows, the last one shorter.
pub fn windows(mel: Tensor<3>) -> Vec<Tensor<3>> {
    let [_, _, total] = mel.dims();
    let mut start = 0;
    let mut out = Vec::new();
    while start < total {
        let len = N_FRAMES.min(total - start);
        out.push(mel.clone().narrow(2, start, len)); // ok (len never passes the end)
        start += len;
    }
    out
}

pub fn lecture_windows(device: &Device) -> usize {
    let mel = Tensor::<3>::zeros([1, N_MELS, frames_in(45)], device);
    windows(mel).len()
}

/// Builds the decoder's cross attention; key/value heads default to the query heads.
#[derive(Clone, Debug)]
pub struct DecoderBuilder {
    size: WhisperSize,
    kv_heads: Option<usize>,
}

impl DecoderBuilder {
    pub fn new(size: WhisperSize) -> Self {
        Self { size, kv_heads: None }
    }

    pub fn with_kv_heads(self, kv_heads: usize) -> Self {
        Self {
            kv_heads: Some(kv_heads),
            ..self
        }
    }

    pub fn cross_attention(&self, device: &Device) -> CrossAttention {
        let Dims { d_model, n_heads } = Dims::from(self.size);
        let kv_heads = self.kv_heads.unwrap_or(n_heads);
        CrossAttentionConfig::new(d_model, d_model, n_heads, kv_heads, HEAD_DIM).init(device) // expect: cross-attention-heads-divide-kv-heads
    }
}

/// Grouped-query cross attention to halve the key/value cache.
pub fn grouped_query_decoder(device: &Device) -> CrossAttention {
    DecoderBuilder::new(WhisperSize::Tiny).with_kv_heads(4).cross_attention(device)
}

/// A token embedding of `size` for a prompt: [batch, tokens] -> [batch, tokens, d_model].
fn embed_prompt(size: WhisperSize, tokens: Tensor<2, Int>, device: &Device) -> Tensor<3> {
    let Dims { d_model, .. } = Dims::from(size);
    EmbeddingConfig::new(N_VOCAB, d_model).init(device).forward(tokens)
}

fn prompt(device: &Device) -> Tensor<2, Int> {
    Tensor::<2, Int>::from_data([[1, 2, 3, 4]], device)
}

/// A base decoder reading tiny audio states through its cross attention.
pub fn base_reads_tiny(device: &Device) -> Tensor<3> {
    let cross = CrossAttentionConfig::new(512, 384, 8, 2, HEAD_DIM).init(device); // ok (8 query heads share 2 kv heads)
    let audio = encode_silence_strided(device);
    let text = embed_prompt(WhisperSize::Base, prompt(device), device);
    cross.forward(text, audio, None)
}

pub fn cli_cross_attention(device: &Device) -> Option<CrossAttention> {
    let kv_heads: usize = std::env::args().nth(2)?.parse().ok()?;
    Some(CrossAttentionConfig::new(384, 384, 6, kv_heads, HEAD_DIM).init(device)) // ok (kv heads from the command line)
}

/// Fine-tuning settings; `..Default::default()` for the rest.
#[derive(Clone, Debug)]
pub struct FineTuneOptions {
    pub learning_rate: f64,
    pub dropout: f64,
    pub freeze_encoder: bool,
}

impl Default for FineTuneOptions {
    fn default() -> Self {
        Self {
            learning_rate: 1e-5,
            dropout: 0.1,
            freeze_encoder: true,
        }
    }
}

fn decoder_dropout(options: &FineTuneOptions) -> Dropout {
    DropoutConfig::new(options.dropout).init() // expect: dropout-probability-range
}

/// Noisy labels: more dropout in the decoder, "10 %".
pub fn noisy_fine_tune() -> Dropout {
    let options = FineTuneOptions {
        dropout: 10.0,
        ..Default::default()
    };
    decoder_dropout(&options)
}

pub fn default_fine_tune() -> Dropout {
    let options = FineTuneOptions::default();
    DropoutConfig::new(options.dropout).init() // ok (0.1)
}

/// Attention of each prompt token over the audio frames.
fn alignment(text: Tensor<3>, audio: Tensor<3>) -> Tensor<3> {
    let scores = text.matmul(audio.swap_dims(1, 2)); // expect: matmul-inner-dim-mismatch
    softmax(scores, 2)
}

/// The base decoder's prompt aligned with the tiny encoder's states.
pub fn align_mixed_sizes(device: &Device) -> Tensor<3> {
    let audio = encode_silence_strided(device);
    let text = embed_prompt(WhisperSize::Base, prompt(device), device);
    alignment(text, audio)
}

/// The frames each token attends to most.
pub fn strongest_frames(device: &Device) -> (Tensor<3>, Tensor<3>) {
    let audio = encode_silence_strided(device);
    let text = embed_prompt(WhisperSize::Tiny, prompt(device), device);
    let weights = softmax(text.matmul(audio.swap_dims(1, 2)), 2); // ok (384 on both sides)
    let per_token = weights.clone().topk(8, 2); // ok (8 of 1500 frames)
    let per_frame = weights.topk(8, 1); // expect: topk-k-out-of-range
    (per_token, per_frame)
}

/// Audio states as [batch, heads, frames, HEAD_DIM].
fn split_heads(x: Tensor<3>, n_heads: usize) -> Tensor<4> {
    let [batch, frames, _] = x.dims();
    x.reshape([batch, frames, n_heads, HEAD_DIM]).swap_dims(1, 2) // expect: reshape-incompatible-shape
}

pub fn audio_heads_for_base(device: &Device) -> Tensor<4> {
    let audio = encode_silence_strided(device);
    let Dims { n_heads, .. } = Dims::from(WhisperSize::Base);
    split_heads(audio, n_heads)
}

pub fn audio_heads(device: &Device) -> Tensor<4> {
    let audio = encode_silence_strided(device);
    let [batch, frames, d_model] = audio.dims();
    audio.reshape([batch, frames, d_model / HEAD_DIM, HEAD_DIM]) // ok (6 heads of 64)
}

/// Sum of the log-probabilities of the tokens of an utterance.
fn sequence_logprob(logits: Tensor<3>, tokens: Tensor<2, Int>) -> f32 {
    let picked = log_softmax(logits, 2).gather(2, tokens.unsqueeze_dim(2));
    picked.sum_dim(1).into_scalar::<f32>() // expect: into-scalar-multiple-elements
}

/// Rescoring two hypotheses at once.
pub fn rescore_pair(device: &Device) -> f32 {
    let tokens = Tensor::<2, Int>::from_data([[7, 8, 9, 10], [11, 12, 13, 14]], device);
    let logits = Tensor::<3>::zeros([2, 4, N_VOCAB], device);
    sequence_logprob(logits, tokens)
}

pub fn rescore_one(device: &Device) -> f32 {
    let tokens = Tensor::<2, Int>::from_data([[7, 8, 9, 10]], device);
    let logits = Tensor::<3>::zeros([1, 4, N_VOCAB], device);
    let picked = log_softmax(logits, 2).gather(2, tokens.unsqueeze_dim(2));
    picked.sum().into_scalar::<f32>() // ok (summed to one value)
}

/// The decoder's input: the start-of-transcript prefix, then the tokens so far.
pub fn decoder_input(device: &Device) -> Tensor<2, Int> {
    let sot = Tensor::<1, Int>::from_ints(SOT_SEQUENCE, device).unsqueeze::<2>();
    let tokens = Tensor::<2, Int>::from_data([[7, 8, 9, 10, 11], [12, 13, 14, 15, 16]], device);
    Tensor::cat(vec![sot, tokens], 1) // expect: cat-mismatched-shapes
}

pub fn decoder_input_batched(device: &Device) -> Tensor<2, Int> {
    let sot = Tensor::<1, Int>::from_ints(SOT_SEQUENCE, device).unsqueeze::<2>().repeat_dim(0, 2);
    let tokens = Tensor::<2, Int>::from_data([[7, 8, 9, 10, 11], [12, 13, 14, 15, 16]], device);
    Tensor::cat(vec![sot, tokens], 1) // ok (the prefix repeated for both rows)
}

/// Finished hypotheses of a beam search, best first, kept on the host.
pub struct Hypotheses {
    scores: Vec<f32>,
}

impl Hypotheses {
    pub fn topk(&self, k: usize, _dim: usize) -> Vec<f32> {
        self.scores.iter().copied().take(k).collect()
    }
}

pub fn best_hypotheses() -> Vec<f32> {
    let hypotheses = Hypotheses {
        scores: vec![-0.5, -1.25],
    };
    hypotheses.topk(5, 1) // ok (the crate's own topk takes what there is)
}

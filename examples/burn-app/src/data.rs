//! Batching utterances for CTC training: transcripts are padded to a common width.

use burn::data::dataloader::batcher::Batcher;
use burn::prelude::*;

/// Blank label index; real labels start at 1.
pub const BLANK: usize = 0;

#[derive(Clone, Debug)]
pub struct Utterance {
    pub spectrogram: Vec<f32>,
    pub frames: usize,
    pub transcript: Vec<i64>,
}

#[derive(Clone, Debug)]
pub struct SpeechBatch {
    pub spectrograms: Tensor<4>,
    pub energy: Tensor<4>,
    pub targets: Tensor<2, Int>,
    pub input_lengths: Tensor<1, Int>,
    pub target_lengths: Tensor<1, Int>,
}

#[derive(Clone, Default)]
pub struct SpeechBatcher;

impl Batcher<Utterance, SpeechBatch> for SpeechBatcher {
    fn batch(&self, items: Vec<Utterance>, device: &Device) -> SpeechBatch {
        let n = items.len();
        let frames = items.iter().map(|u| u.frames).max().unwrap_or(1);
        // The width is the longest transcript of this batch: known only at run time.
        let max_len = items.iter().map(|u| u.transcript.len()).max().unwrap_or(1);

        let mut flat = vec![BLANK as i64; n * max_len];
        for (row, item) in items.iter().enumerate() {
            flat[row * max_len..row * max_len + item.transcript.len()]
                .copy_from_slice(&item.transcript);
        }
        let targets = Tensor::<2, Int>::from_data(TensorData::new(flat, [n, max_len]), device);

        let mut specs = vec![0.0f32; n * 40 * frames];
        for (row, item) in items.iter().enumerate() {
            let len = item.spectrogram.len().min(40 * frames);
            specs[row * 40 * frames..row * 40 * frames + len].copy_from_slice(&item.spectrogram[..len]);
        }
        let spectrograms = Tensor::<4>::from_data(TensorData::new(specs, [n, 1, 40, frames]), device);
        let energy = spectrograms.clone().powf_scalar(2.0).sum_dim(2);

        let lengths = |f: fn(&Utterance) -> usize| {
            let v: Vec<i64> = items.iter().map(|u| f(u) as i64).collect();
            Tensor::<1, Int>::from_data(TensorData::new(v, [n]), device)
        };
        SpeechBatch {
            spectrograms,
            energy,
            targets,
            input_lengths: lengths(|u| u.frames),
            target_lengths: lengths(|u| u.transcript.len()),
        }
    }
}

// Short-time features for a keyword spotter.
use burn::prelude::*;
use burn::tensor::signal::{stft, StftOptions};

// More of this panic: the corpus example tests/corpus/panics/stft-hop-length-zero/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(audio: Tensor<2>, spec: Tensor<4>, n: usize) {
    // new(n_fft) sets hop_length = max(n_fft / 4, 1): never 0
    let _a = stft(audio.clone(), None, StftOptions::new(2)); // ok
    let _b = burn::tensor::signal::istft(spec.clone(), None, None, StftOptions { hop_length: 0, ..StftOptions::new(64) }); // expect: stft-hop-length-zero
    let _c = stft(audio.clone(), None, StftOptions { hop_length: 0, ..StftOptions::new(n) }); // expect: stft-hop-length-zero
    // n_fft 400 fails the power-of-two assert first: only that rule flags it
    let _d = stft(audio.clone(), None, StftOptions { hop_length: 0, ..StftOptions::default() }); // expect: stft-n-fft-not-power-of-two
    let mut opts = StftOptions::new(512);
    opts.hop_length = 0;
    let _e = stft(audio, None, opts); // todo-expect: stft-hop-length-zero (a field assigned after the let is not followed)
}

fn framing(n_fft: usize, hop_length: usize) -> StftOptions {
    StftOptions { n_fft, hop_length, win_length: None, center: true, onesided: true }
}

pub fn through_a_helper(audio: Tensor<2>, hop: usize) {
    let _a = stft(audio.clone(), None, framing(256, 0)); // expect: stft-hop-length-zero
    let _b = stft(audio.clone(), None, framing(256, 64)); // ok
    let _c = stft(audio, None, framing(256, hop)); // ok
}

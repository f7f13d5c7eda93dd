// Spectrogram settings for 48 kHz recordings.
use burn::prelude::*;
use burn::tensor::signal::{stft, StftOptions};

const WINDOW: usize = 1200;

// More of this panic: the corpus example tests/corpus/panics/stft-win-length-exceeds-n-fft/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(audio: Tensor<2>, spec: Tensor<4>) {
    let _a = stft(audio.clone(), None, StftOptions::new(1024)); // ok (win_length defaults to n_fft)
    let _b = stft(audio.clone(), None, StftOptions { win_length: Some(1024), ..StftOptions::new(1024) }); // ok
    let _c = burn::tensor::signal::istft(spec.clone(), None, None, StftOptions { win_length: Some(1024), ..StftOptions::new(512) }); // expect: stft-win-length-exceeds-n-fft
    let _d = stft(audio.clone(), None, StftOptions { win_length: None, ..StftOptions::new(256) }); // ok
    // n_fft 400 fails the power-of-two assert first: only that rule flags it
    let _e = stft(audio.clone(), None, StftOptions { win_length: Some(512), ..StftOptions::default() }); // expect: stft-n-fft-not-power-of-two
    let base = StftOptions::new(256);
    let wide = StftOptions { win_length: Some(WINDOW / 2 - 300), hop_length: 64, ..base };
    let _f = stft(audio, None, wide); // expect: stft-win-length-exceeds-n-fft
}

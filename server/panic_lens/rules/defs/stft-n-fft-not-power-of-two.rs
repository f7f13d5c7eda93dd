// Log-mel front end for a speech model (16 kHz audio).
use burn::prelude::*;
use burn::tensor::signal::{istft, stft, StftOptions};

// More of this panic: the corpus example tests/corpus/panics/stft-n-fft-not-power-of-two/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(audio: Tensor<2>, spec: Tensor<4>) {
    let _a = stft(audio.clone(), None, StftOptions::default()); // expect: stft-n-fft-not-power-of-two
    let _b = istft(spec.clone(), None, None, StftOptions::new(600)); // expect: stft-n-fft-not-power-of-two
    let _c = istft(spec, None, Some(16000), StftOptions::new(1024)); // ok
    let _d = stft(audio.clone(), None, StftOptions { n_fft: 512, ..StftOptions::default() }); // ok
    let _e = stft(audio.clone(), None, StftOptions { n_fft: 300, ..Default::default() }); // expect: stft-n-fft-not-power-of-two
    // n_fft = 0 fails the n_fft >= 1 assert first.
    let _f = stft(audio.clone(), None, StftOptions::new(0)); // ok
    let _g = burn::tensor::signal::stft(audio, None, StftOptions::new(2 * 100)); // expect: stft-n-fft-not-power-of-two
}

// Log-mel front end for a speech model (16 kHz audio).
use burn::prelude::*;
use burn::tensor::signal::{istft, stft, StftOptions};

const N_FFT: usize = 400;
const HOP: usize = 160;

mod local {
    pub struct StftOptions {
        pub n_fft: usize,
    }
    impl StftOptions {
        pub fn new(n_fft: usize) -> Self {
            Self { n_fft }
        }
    }
    pub fn stft(_signal: &[f32], options: StftOptions) -> usize {
        options.n_fft
    }
}

pub fn spectrogram(audio: Tensor<2>) -> Tensor<4> {
    stft(audio, None, StftOptions::new(N_FFT)) // expect: stft-n-fft-not-power-of-two
}

pub fn features(audio: Tensor<2>, n_fft: usize) -> Vec<Tensor<4>> {
    let a = stft(audio.clone(), None, StftOptions::new(512)); // ok
    let opts = StftOptions { win_length: Some(400), hop_length: HOP, ..StftOptions::new(512) };
    let b = stft(audio.clone(), None, opts); // ok
    let c = stft(audio.clone(), None, StftOptions::new(n_fft)); // ok
    let d = stft(audio, None, StftOptions::new(1000)); // expect: stft-n-fft-not-power-of-two
    vec![a, b, c, d]
}

pub fn look_alikes() -> usize {
    local::stft(&[0.0; 4], local::StftOptions::new(400)) // ok
}

// Lines added with the rule file.
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

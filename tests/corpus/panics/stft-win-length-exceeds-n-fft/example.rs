// Spectrogram settings for 48 kHz recordings.
use burn::prelude::*;
use burn::tensor::signal::{stft, StftOptions};

const WINDOW: usize = 1200;

mod local {
    pub struct StftOptions {
        pub n_fft: usize,
        pub win_length: Option<usize>,
    }
    pub fn stft(options: StftOptions) -> usize {
        options.n_fft + options.win_length.unwrap_or(0)
    }
}

pub fn spectrogram(audio: Tensor<2>, win: usize) -> Vec<Tensor<4>> {
    let ok = StftOptions { win_length: Some(400), ..StftOptions::new(512) };
    let a = stft(audio.clone(), None, ok); // ok
    let long = StftOptions { win_length: Some(WINDOW), ..StftOptions::new(1024) };
    let b = stft(audio.clone(), None, long); // expect: stft-win-length-exceeds-n-fft
    let c = stft(audio.clone(), None, StftOptions { win_length: Some(win), ..StftOptions::new(1024) }); // ok
    let d = stft(audio, None, StftOptions { win_length: Some(2048), hop_length: 256, ..StftOptions::new(1024) }); // expect: stft-win-length-exceeds-n-fft
    vec![a, b, c, d]
}

pub fn look_alikes() -> usize {
    local::stft(local::StftOptions { n_fft: 512, win_length: Some(2048) }) // ok
}

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

// Lines added with the rule file.
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

// Short-time features for a keyword spotter.
use burn::prelude::*;
use burn::tensor::signal::{stft, StftOptions};

const HOP_MS: usize = 0;

mod local {
    pub struct StftOptions {
        pub hop_length: usize,
    }
    pub fn stft(options: StftOptions) -> usize {
        options.hop_length
    }
}

pub fn features(audio: Tensor<2>, hop: usize) -> Vec<Tensor<4>> {
    let a = stft(audio.clone(), None, StftOptions::new(512)); // ok
    let b = stft(audio.clone(), None, StftOptions { hop_length: 0, ..StftOptions::new(512) }); // expect: stft-hop-length-zero
    let c = stft(audio.clone(), None, StftOptions { hop_length: hop, ..StftOptions::new(512) }); // ok
    let opts = StftOptions { hop_length: HOP_MS * 16, ..StftOptions::new(256) };
    let d = stft(audio.clone(), None, opts); // expect: stft-hop-length-zero
    let e = stft(audio, None, StftOptions { hop_length: 128, ..StftOptions::new(512) }); // ok
    vec![a, b, c, d, e]
}

pub fn look_alikes() -> usize {
    local::stft(local::StftOptions { hop_length: 0 }) // ok
}

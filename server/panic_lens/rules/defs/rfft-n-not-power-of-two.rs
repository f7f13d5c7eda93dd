// Spectral features for an audio front end.
use burn::prelude::*;
use burn::tensor::signal::{irfft, rfft};

const N_FFT: usize = 400;

mod local {
    pub fn rfft(samples: &[f32], _dim: usize, n: Option<usize>) -> Vec<f32> {
        samples.iter().take(n.unwrap_or(samples.len())).copied().collect()
    }
}

pub fn spectrum(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let frames = Tensor::<2>::zeros([10, 512], device);
    let _whisper = rfft(frames.clone(), 1, Some(N_FFT)); // expect: rfft-n-not-power-of-two
    let _padded = rfft(frames.clone(), 1, Some(1024)); // ok
    let _auto = rfft(frames.clone(), -1, None); // ok
    rfft(frames, 1, Some(100)) // expect: rfft-n-not-power-of-two
}

pub fn back(re: Tensor<1>, im: Tensor<1>) -> Tensor<1> {
    irfft(re, im, 0, Some(6)) // expect: rfft-n-not-power-of-two
}

pub fn configured(x: Tensor<1>, n_fft: usize) -> (Tensor<1>, Tensor<1>) {
    rfft(x, 0, Some(n_fft)) // ok
}

pub fn look_alikes() -> usize {
    let v = local::rfft(&[1.0, 2.0, 3.0], 0, Some(3)); // ok
    let p = 400usize.next_power_of_two(); // ok
    v.len() + p
}

// Lines added with the rule file.
pub fn more(x: Tensor<1>, re: Tensor<1>, im: Tensor<1>) {
    let _a = burn::tensor::signal::rfft(x.clone(), 0, Some(2048)); // ok
    let _b = burn::tensor::signal::rfft(x.clone(), 0, Some(3 * 256)); // expect: rfft-n-not-power-of-two
    // n = 0 fails the n >= 1 assert first.
    let _c = rfft(x.clone(), 0, Some(0)); // ok
    let _d = rfft(x, 0, Some(1)); // ok
    let _e = irfft(re, im, 0, Some(512)); // ok
}

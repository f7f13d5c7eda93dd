//! Shapes that only look incompatible: broadcasting with 1s, `-1` and `0` in `reshape`,
//! `swap_dims`/`transpose` before `matmul`, `unsqueeze` before `expand`, values from iterators
//! and collections of the right length, values read from the environment, a file or the command
//! line, helpers called with different values at different call sites, and values built in
//! loops.

use burn::prelude::*;
use burn::tensor::Distribution;

use crate::hparams::{BATCH, WIDTH};

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

fn tokens(device: &Device) -> Tensor<3> {
    Tensor::<3>::random([BATCH, 6, 8], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// Broadcasting and reshapes.
// ---------------------------------------------------------------------------------------------

pub fn broadcast(device: &Device) -> Tensor<3> {
    let per_row = Tensor::<3>::ones([BATCH, 1, 8], device);
    let per_pos = Tensor::<3>::ones([1, 6, 8], device);
    tokens(device) * per_row + per_pos // ok ([4, 1, 8] and [1, 6, 8] broadcast against [4, 6, 8])
}

pub fn outer(device: &Device) -> Tensor<2> {
    let col = Tensor::<2>::ones([BATCH, 1], device);
    let row = Tensor::<2>::ones([1, WIDTH], device);
    col - row // ok ([4, 1] against [1, 12])
}

pub fn flattened(device: &Device) -> [Tensor<2>; 3] {
    let x = tokens(device); // 192 values
    let rows = x.clone().reshape([BATCH as i32, -1]); // ok ([4, 48])
    let cols = x.clone().reshape([-1, 16]); // ok (192 / 16 = 12)
    let same = x.clone().reshape([0, -1]); // ok (0 keeps the 4)
    let _kept = x.reshape([0, -1, 4]); // ok ([4, 12, 4])
    [rows, cols, same]
}

pub fn flattened_by_five(device: &Device) -> Tensor<2> {
    tokens(device).reshape([-1, 5]) // expect: reshape-incompatible-shape
}

pub fn rechunked(device: &Device) -> Tensor<2> {
    let x = tokens(device).reshape([BATCH * 6, 8]);
    let w = Tensor::<2>::random([8, 5], Distribution::Default, device);
    x.matmul(w) // ok ([24, 8] x [8, 5])
}

// ---------------------------------------------------------------------------------------------
// Transposes before `matmul`, unsqueezes before `expand`, squeezes after a swap.
// ---------------------------------------------------------------------------------------------

pub fn attention_scores(device: &Device) -> [Tensor<3>; 2] {
    let q = tokens(device);
    let k = tokens(device);
    let swapped = q.clone().matmul(k.clone().swap_dims(1, 2)); // ok ([4, 6, 8] x [4, 8, 6])
    let k = k.swap_dims(-1, -2);
    [swapped, q.matmul(k)] // ok (k is [4, 8, 6] since the swap)
}

pub fn similarity(device: &Device) -> [Tensor<2>; 2] {
    let a = scores(device);
    let b = scores(device);
    let gram = a.clone().matmul(b.clone().transpose()); // ok ([4, 12] x [12, 4])
    let tied = a.matmul(b.t()); // ok
    [gram, tied]
}

pub fn similarity_untransposed(device: &Device) -> Tensor<2> {
    scores(device).matmul(scores(device)) // expect: matmul-inner-dim-mismatch
}

pub fn expanded(device: &Device) -> [Tensor<3>; 2] {
    let bias = Tensor::<1>::ones([8], device);
    let per_token = bias.unsqueeze::<2>().expand([6, 8]); // ok ([1, 8] to [6, 8])
    let rows = scores(device).unsqueeze_dim::<3>(1).expand([BATCH, 6, WIDTH]); // ok ([4, 1, 12] to [4, 6, 12])
    [per_token.unsqueeze_dim::<3>(0).expand([BATCH, 6, 8]), rows] // ok ([1, 6, 8] to [4, 6, 8])
}

pub fn expanded_on_the_wrong_axis(device: &Device) -> Tensor<2> {
    let bias = Tensor::<1>::ones([WIDTH], device);
    bias.unsqueeze_dim::<2>(1).expand([BATCH, WIDTH]) // expect: expand-incompatible-shape
}

pub fn squeezed_after_swap(device: &Device) -> Tensor<2> {
    let pooled = Tensor::<3>::zeros([BATCH, 1, WIDTH], device);
    let pooled = pooled.swap_dims(0, 1); // [1, 4, 12]
    pooled.squeeze_dim::<2>(0) // ok (dim 0 has size 1 since the swap)
}

pub fn permuted_then_flipped(device: &Device) -> Tensor<3> {
    let x = tokens(device).permute([0, 2, 1]); // ok ([4, 8, 6])
    x.narrow(1, 4, 4).flip([0, 2]) // ok (8 features after the permute)
}

pub fn stacked_views(device: &Device) -> Tensor<3> {
    let a = scores(device);
    let b = Tensor::<2>::zeros([6, 8], device).reshape([BATCH, WIDTH]);
    Tensor::stack(vec![a, b], 0) // ok (both [4, 12] since the reshape)
}

pub fn joined(device: &Device) -> Tensor<2> {
    let a = scores(device);
    let b = Tensor::<2>::zeros([WIDTH, BATCH], device).transpose();
    Tensor::cat(vec![a, b], 1) // ok ([4, 12] and [4, 12])
}

pub fn single(device: &Device) -> [f32; 2] {
    let x = scores(device);
    let total = x.clone().sum().into_scalar::<f32>(); // ok (a sum: one element)
    let corner = x.narrow(0, 3, 1).narrow(1, WIDTH - 1, 1).into_scalar::<f32>(); // ok ([1, 1])
    [total, corner]
}

// ---------------------------------------------------------------------------------------------
// Iterators and collections, values built in loops.
// ---------------------------------------------------------------------------------------------

pub fn collected(device: &Device) -> [Tensor<2>; 2] {
    let parts: Vec<Tensor<2>> = (0..3).map(|_| scores(device)).collect();
    let sizes: Vec<usize> = [3, 4, 5].iter().copied().collect();
    let all = Tensor::cat(parts, 0); // ok (three [4, 12])
    let first = all.clone().split_with_sizes(sizes, 1).remove(0); // ok (3 + 4 + 5 = 12)
    [all, first]
}

pub fn best_fitting_k(device: &Device) -> Tensor<2> {
    let k = [3, 9, 40].into_iter().filter(|&k| k <= WIDTH).max().unwrap_or(1);
    scores(device).topk(k, 1) // ok (40 is filtered out: 9)
}

pub fn summed_len(device: &Device) -> Tensor<2> {
    let mut total = 0;
    for w in [2, 4, 6] {
        total += w;
    }
    scores(device).narrow(1, 0, total) // ok (2 + 4 + 6 = 12)
}

pub fn tiles(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    let mut out = Vec::new();
    for i in 0..3 {
        out.push(x.clone().narrow(1, 4 * i, 4)); // ok (starts 0, 4, 8: the range excludes 3)
    }
    out
}

pub fn loop_sizes(device: &Device) -> Vec<Tensor<2>> {
    let mut sizes = Vec::new();
    for _ in 0..WIDTH / 4 {
        sizes.push(4);
    }
    scores(device).split_with_sizes(sizes, 1) // ok (three 4s)
}

pub fn grown_values(device: &Device) -> Tensor<2> {
    let mut values = Vec::new();
    for row in 0..3 {
        for col in 0..4 {
            values.push((row * 4 + col) as f32);
        }
    }
    Tensor::from_data(TensorData::new(values, [3, 4]), device) // ok (12 values)
}

// ---------------------------------------------------------------------------------------------
// Values from the environment, a file or the command line.
// ---------------------------------------------------------------------------------------------

pub fn k_from_env(device: &Device) -> Tensor<2> {
    let k: usize = std::env::var("TOP_K").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    scores(device).topk(k, 1) // ok (k comes at run time)
}

pub fn crop_from_file(device: &Device) -> std::io::Result<Tensor<2>> {
    let text = std::fs::read_to_string("crop.txt")?;
    let len: usize = text.trim().parse().unwrap_or(WIDTH);
    Ok(scores(device).narrow(1, 0, len)) // ok (len comes at run time)
}

pub fn heads_from_cli(device: &Device) -> Tensor<4> {
    let heads: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2);
    tokens(device).reshape([BATCH, 6, heads, 8 / heads]) // ok (heads comes at run time)
}

// ---------------------------------------------------------------------------------------------
// Helpers called with different values at different call sites.
// ---------------------------------------------------------------------------------------------

fn keep(x: Tensor<2>, len: usize) -> Tensor<2> {
    x.narrow(1, 0, len) // ok (called with 8 and 12 only)
}

fn keep_top(x: Tensor<2>, k: usize) -> Tensor<2> {
    x.topk(k, 1) // expect: topk-k-out-of-range
}

pub fn kept(device: &Device) -> [Tensor<2>; 4] {
    [
        keep(scores(device), 8),
        keep(scores(device), WIDTH),
        keep_top(scores(device), 5),
        keep_top(scores(device), 2 * WIDTH),
    ]
}

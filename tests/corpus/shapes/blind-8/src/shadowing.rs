//! Shadowed names: consts shadowed by a fn's or a block's own const, `let`s shadowed in nested
//! blocks, a `use` in a fn bringing another module's const of the same name, a method's local
//! named like its struct's field, tensors shadowed by a reshape, and closures that capture a
//! value by copy before the variable changes.

use burn::nn::{Dropout, DropoutConfig, GroupNorm, GroupNormConfig};
use burn::prelude::*;
use burn::tensor::Distribution;

use crate::hparams::{BATCH, GROUPS, WIDTH};

/// How many scores a ranking keeps: more than a row has (the module's default for the wide
/// ranking head of another model).
const KEEP: usize = 20;
/// Crop length of the wide model.
const CROP: usize = 40;

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

fn crop() -> usize {
    CROP
}

// ---------------------------------------------------------------------------------------------
// Consts shadowed by a fn's or a block's own const.
// ---------------------------------------------------------------------------------------------

pub fn ranked(device: &Device) -> Tensor<2> {
    const KEEP: usize = 5;
    scores(device).topk(KEEP, 1) // ok (the fn's own KEEP = 5 shadows the module's 20)
}

pub fn ranked_in_block(device: &Device) -> Tensor<2> {
    let x = scores(device);
    let top = {
        const KEEP: usize = WIDTH;
        x.clone().topk(KEEP, 1) // ok (the block's KEEP = 12, the row's size)
    };
    top + x.topk(WIDTH, -1) // ok
}

pub fn ranked_after_block(device: &Device) -> Tensor<2> {
    let x = scores(device);
    {
        // the wide head's budget, only printed here
        const KEEP: usize = 3;
        println!("keeping {KEEP} of {WIDTH}");
    }
    x.topk(KEEP, 1) // expect: topk-k-out-of-range
}

pub fn ranked_small_block(device: &Device) -> Tensor<2> {
    let x = scores(device);
    let kept = {
        const KEEP: usize = 4;
        KEEP
    };
    x.topk(kept, 1) // ok (the block's value, 4, not the module's KEEP)
}

pub fn cropped(device: &Device) -> Tensor<2> {
    fn crop() -> usize {
        8
    }
    scores(device).narrow(1, 0, crop()) // ok (the fn's own crop() returns 8)
}

pub fn cropped_wide(device: &Device) -> Tensor<2> {
    scores(device).narrow(1, 0, crop()) // expect: narrow-out-of-range
}

// ---------------------------------------------------------------------------------------------
// A `use` in a fn bringing another module's const of the same name.
// ---------------------------------------------------------------------------------------------

pub fn stem_norm(device: &Device) -> GroupNorm {
    use crate::hparams::vision::GROUPS;
    GroupNormConfig::new(GROUPS, 48).init(device) // ok (vision::GROUPS = 6 divides 48)
}

pub fn stem_norm_by_path(device: &Device) -> GroupNorm {
    GroupNormConfig::new(crate::hparams::vision::GROUPS, 48).init(device) // ok
}

pub fn text_norm(device: &Device) -> GroupNorm {
    GroupNormConfig::new(GROUPS, crate::hparams::text::CHANNELS).init(device) // ok (5 divides 40)
}

pub fn stem_norm_with_text_groups(device: &Device) -> GroupNorm {
    GroupNormConfig::new(GROUPS, 48).init(device) // expect: group-norm-groups-divide-channels
}

pub fn centre_crop(device: &Device) -> Tensor<2> {
    use crate::hparams::vision::CROP;
    scores(device).narrow(1, (WIDTH - CROP) / 2, CROP) // ok (vision::CROP = 8 at 2)
}

// ---------------------------------------------------------------------------------------------
// `let`s shadowed in nested blocks, loop and match bindings.
// ---------------------------------------------------------------------------------------------

pub fn windows_of_rows(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    let len = 30;
    let head = {
        let len = 6;
        x.clone().narrow(1, 0, len) // ok (the block's len = 6)
    };
    let tail = {
        let len = len / 5;
        x.clone().narrow(1, WIDTH - len, len) // ok (30 / 5 = 6 at 6)
    };
    println!("{len}");
    vec![head, tail, x.narrow(1, 0, len)] // expect: narrow-out-of-range
}

pub fn top_per_budget(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    let k = 100;
    let mut out = Vec::new();
    for k in [1, 6, WIDTH] {
        out.push(x.clone().topk(k, 1)); // ok (the loop's k, at most 12)
    }
    println!("budget {k}");
    out
}

pub enum Head {
    Compact,
    Full,
}

pub fn head_crop(x: Tensor<2>, head: Head) -> Tensor<2> {
    let len = 64;
    match head {
        Head::Compact => {
            let len = 4;
            x.narrow(1, 0, len) // ok (the arm's len = 4; x is the caller's)
        }
        Head::Full => x.narrow(1, 0, len / 64), // ok (x is the caller's)
    }
}

pub fn shadowed_tensor(device: &Device) -> Tensor<2> {
    let x = scores(device); // [4, 12]
    let x = x.reshape([2, 24]);
    x.narrow(1, 12, 12) // ok (x is [2, 24] since the reshape)
}

pub fn shadowed_in_block(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let x = scores(device);
    let wide = {
        let x = Tensor::<2>::zeros([BATCH, 30], device);
        x.narrow(1, 20, 10) // ok (the block's x is [4, 30])
    };
    (wide, x.narrow(1, 6, 6)) // ok
}

pub fn shadowed_rank(device: &Device) -> Tensor<2> {
    let x = Tensor::<3>::random([2, 6, WIDTH], Distribution::Default, device);
    let x = x.flatten::<2>(0, 1); // [12, 12]
    x.flip([-2, 1]) // ok (rank 2 now: -2 is 0)
}

pub fn closure_param_shadows(device: &Device) -> Tensor<2> {
    let x = scores(device);
    let len = 30;
    let crop = |t: Tensor<2>, len: usize| t.narrow(1, 0, len); // ok (called with 6)
    println!("default crop {len}");
    crop(x, 6)
}

// ---------------------------------------------------------------------------------------------
// A method's local named like its struct's field.
// ---------------------------------------------------------------------------------------------

pub struct HeadSplit {
    /// Heads of the checkpoint this split was ported from (64 / 5 is not whole).
    pub heads: usize,
    pub width: usize,
}

impl HeadSplit {
    pub fn new() -> Self {
        Self { heads: 5, width: 64 }
    }

    pub fn split(&self, device: &Device) -> Tensor<4> {
        let x = Tensor::<3>::zeros([2, 8, self.width], device);
        let heads = 4;
        x.reshape([2, 8, heads, self.width / heads]) // ok (the local heads = 4, not the field's 5)
    }

    pub fn norm(&self, device: &Device) -> GroupNorm {
        let width = 40;
        GroupNormConfig::new(self.heads, width).init(device) // ok (5 divides the local 40)
    }
}

impl Default for HeadSplit {
    fn default() -> Self {
        Self::new()
    }
}

// ---------------------------------------------------------------------------------------------
// Closures that capture by copy before the variable changes.
// ---------------------------------------------------------------------------------------------

pub fn captured_before_change(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let x = scores(device);
    let mut n = 4;
    let first = move |t: Tensor<2>| t.narrow(1, 0, n); // ok (n = 4 is copied in)
    n = WIDTH;
    (first(x.clone()), x.narrow(1, 0, n)) // ok (n = 12 since)
}

pub fn captured_then_grown(device: &Device) -> (Tensor<2>, Tensor<2>) {
    let x = scores(device);
    let mut n = 4;
    let first = move |t: Tensor<2>| t.topk(n, 1); // ok (n = 4 is copied in)
    n *= 5;
    (first(x.clone()), x.topk(n, 1)) // expect: topk-k-out-of-range (miss: n is multiplied in place after a move closure copied it, 4 times 5 = 20)
}

pub fn dropout_captured(device: &Device) -> (Dropout, Tensor<2>) {
    let mut prob = 0.1;
    let make = move || DropoutConfig::new(prob).init(); // ok (prob = 0.1 is copied in)
    prob = 10.0;
    println!("the paper's rate: {prob} %");
    (make(), scores(device))
}

//! `Self::CONST`, associated consts of traits, consts imported from another module, and
//! arithmetic on consts.
use crate::hparams::vision::{CHANNELS, GROUPS as VISION_GROUPS};
use crate::hparams::{D_MODEL, N_GROUPS, N_HEADS, SEQ_LEN, VOCAB};
use burn::nn::{GroupNorm, GroupNormConfig, PositionalEncodingConfig, RotaryEncodingConfig};
use burn::prelude::*;

const HEAD_DIM: usize = D_MODEL / N_HEADS;
const GROUP_DIM: usize = D_MODEL / N_GROUPS;

pub struct Encoder;

impl Encoder {
    const WIDTH: usize = 48;
    const GROUPS: usize = 5;
    const SAFE_GROUPS: usize = 6;

    pub fn norms(device: &Device) -> Vec<GroupNorm> {
        vec![
            GroupNormConfig::new(Self::GROUPS, Self::WIDTH).init(device), // expect: group-norm-groups-divide-channels
            GroupNormConfig::new(Self::SAFE_GROUPS, Self::WIDTH).init(device), // ok
            GroupNormConfig::new(Encoder::GROUPS, Encoder::WIDTH * 2).init(device), // expect: group-norm-groups-divide-channels
            GroupNormConfig::new(Self::GROUPS, Self::WIDTH + 2).init(device), // ok
        ]
    }
}

pub trait Arch {
    const HIDDEN: usize;
    const HEADS: usize = 5;
}

pub struct Tiny;

impl Arch for Tiny {
    const HIDDEN: usize = 30;
    const HEADS: usize = 4;
}

pub struct Wide;

impl Arch for Wide {
    const HIDDEN: usize = 48;
    const HEADS: usize = 6;
}

pub struct Plain;

impl Arch for Plain {
    const HIDDEN: usize = 48;
}

pub fn trait_consts(device: &Device) -> Vec<GroupNorm> {
    vec![
        GroupNormConfig::new(Tiny::HEADS, Tiny::HIDDEN).init(device), // expect: group-norm-groups-divide-channels
        GroupNormConfig::new(<Wide as Arch>::HEADS, <Wide as Arch>::HIDDEN).init(device), // ok
        GroupNormConfig::new(Plain::HEADS, Plain::HIDDEN).init(device), // expect: group-norm-groups-divide-channels
    ]
}

/// Look-alike: the implementing type is a generic parameter.
pub fn generic<A: Arch>(device: &Device) -> GroupNorm {
    GroupNormConfig::new(A::HEADS, A::HIDDEN).init(device) // ok
}

pub fn imported(device: &Device, heads: usize) -> Vec<GroupNorm> {
    vec![
        GroupNormConfig::new(N_HEADS, D_MODEL).init(device), // expect: group-norm-groups-divide-channels
        GroupNormConfig::new(N_GROUPS, D_MODEL).init(device), // ok
        GroupNormConfig::new(VISION_GROUPS, CHANNELS).init(device), // expect: group-norm-groups-divide-channels
        GroupNormConfig::new(crate::hparams::vision::GROUPS, 2 * crate::hparams::vision::CHANNELS).init(device), // ok
        GroupNormConfig::new(heads, D_MODEL).init(device), // ok
    ]
}

pub fn arithmetic(device: &Device) -> Vec<Tensor<2>> {
    let _rope = RotaryEncodingConfig::new(SEQ_LEN, D_MODEL / N_HEADS).init(device); // expect: rotary-encoding-d-model-even
    let _rope_ok = RotaryEncodingConfig::new(SEQ_LEN, D_MODEL / N_GROUPS).init(device); // ok
    let _head = RotaryEncodingConfig::new(SEQ_LEN, HEAD_DIM).init(device); // expect: rotary-encoding-d-model-even
    let _group = RotaryEncodingConfig::new(SEQ_LEN, GROUP_DIM).init(device); // ok
    let _pe = PositionalEncodingConfig::new(D_MODEL + 1).init(device); // expect: positional-encoding-d-model-even
    let _pe_ok = PositionalEncodingConfig::new(D_MODEL).init(device); // ok
    let x = Tensor::<2>::zeros([SEQ_LEN, D_MODEL], device);
    let a = x.clone().narrow(1, D_MODEL - 8, 16); // expect: narrow-out-of-range
    let b = x.clone().narrow(1, D_MODEL - 16, 16); // ok
    let c = x.narrow(0, SEQ_LEN / 2, SEQ_LEN / 2 + 1); // expect: narrow-out-of-range
    let data = TensorData::new(vec![0.0f32; VOCAB], [VOCAB / 2, 3]); // expect: tensor-data-shape-mismatch
    let fine = TensorData::new(vec![0.0f32; VOCAB], [VOCAB / 3, 3]); // ok
    let d = Tensor::<2>::from_data(data, device);
    let e = Tensor::<2>::from_data(fine, device);
    vec![a, b, c, d, e]
}

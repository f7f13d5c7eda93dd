//! The crate's own types and functions named like burn's (a host-side `Tensor` and
//! `TensorData`, a `GroupNormConfig` for a CPU preview, a free `narrow`), traits with default
//! methods and associated consts, generic helpers over `const K: usize`, methods of the same
//! name on different types, trait objects, `macro_rules!` helpers, and `#[should_panic]` tests.

use burn::nn::{GroupNorm, GroupNormConfig};
use burn::prelude::*;
use burn::tensor::Distribution;

use crate::hparams::{BATCH, CHANNELS, WIDTH};

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// The crate's own types named like burn's.
// ---------------------------------------------------------------------------------------------

/// Host-side buffers for the preprocessing workers (no burn types).
pub mod host {
    #[derive(Clone, Debug)]
    pub struct TensorData {
        pub values: Vec<f32>,
        pub shape: Vec<usize>,
    }

    impl TensorData {
        /// Keeps the values as given; `shape` is only a hint for the viewer.
        pub fn new<const N: usize>(values: Vec<f32>, shape: [usize; N]) -> Self {
            Self { values, shape: shape.to_vec() }
        }
    }

    #[derive(Clone, Debug)]
    pub struct Tensor {
        pub rows: Vec<Vec<f32>>,
    }

    impl Tensor {
        pub fn zeros(rows: usize, cols: usize) -> Self {
            Self { rows: vec![vec![0.0; cols]; rows] }
        }

        /// Keeps up to `len` columns from `start`, fewer near the end.
        pub fn narrow(self, _dim: usize, start: usize, len: usize) -> Self {
            let rows = self
                .rows
                .into_iter()
                .map(|r| r.into_iter().skip(start).take(len).collect())
                .collect();
            Self { rows }
        }

        /// Re-cuts the flattened values into rows of `width` (the last row may be short).
        pub fn reshape(self, [_, width]: [usize; 2]) -> Self {
            let flat: Vec<f32> = self.rows.into_iter().flatten().collect();
            Self { rows: flat.chunks(width.max(1)).map(|c| c.to_vec()).collect() }
        }

        pub fn topk(mut self, k: usize, _dim: usize) -> Self {
            for r in &mut self.rows {
                r.sort_by(|a, b| b.total_cmp(a));
                r.truncate(k);
            }
            self
        }
    }

    /// Drop rates for the preview, in percent.
    pub struct DropoutConfig {
        pub percent: f64,
    }

    impl DropoutConfig {
        pub fn new(percent: f64) -> Self {
            Self { percent }
        }

        pub fn init(&self) -> f64 {
            self.percent / 100.0
        }
    }

    /// A CPU preview of the norm's grouping: the last group takes the remainder.
    pub struct GroupNormConfig {
        pub num_groups: usize,
        pub num_channels: usize,
    }

    impl GroupNormConfig {
        pub fn new(num_groups: usize, num_channels: usize) -> Self {
            Self { num_groups, num_channels }
        }

        pub fn init(&self) -> Vec<usize> {
            let size = self.num_channels.div_ceil(self.num_groups.max(1));
            (0..self.num_channels).step_by(size.max(1)).collect()
        }
    }
}

pub fn host_preview() -> (host::Tensor, host::Tensor, host::TensorData, Vec<usize>) {
    let crop = host::Tensor::zeros(BATCH, WIDTH).narrow(1, 0, 40); // ok (the crate's own Tensor keeps what there is)
    let grid = host::Tensor::zeros(BATCH, WIDTH).reshape([5, 7]).topk(20, 1); // ok (the crate's own reshape and topk)
    let data = host::TensorData::new(vec![0.0; 10], [3, 4]); // ok (the crate's own TensorData)
    let groups = host::GroupNormConfig::new(5, CHANNELS).init(); // ok (the crate's own GroupNormConfig)
    let _rate = host::DropoutConfig::new(50.0).init(); // ok (the crate's own DropoutConfig, in percent)
    (crop, grid, data, groups)
}

pub fn host_preview_imported() -> host::Tensor {
    use self::host::Tensor;
    Tensor::zeros(2, 3).narrow(1, 2, 9) // ok (the fn's `use` brings the crate's own Tensor)
}

/// Keeps `len` leading values of a slice (the crate's own `narrow`, on plain slices).
pub fn narrow(values: &[f32], len: usize) -> &[f32] {
    &values[..len.min(values.len())]
}

pub fn preview_row() -> usize {
    let row = [0.5f32; WIDTH];
    narrow(&row, 40).len() // ok (the crate's own narrow)
}

pub fn burn_norm_after_host(device: &Device) -> GroupNorm {
    let _preview = host::GroupNormConfig::new(5, CHANNELS).init();
    GroupNormConfig::new(8, CHANNELS).init(device) // ok (burn's, 8 divides 48)
}

// ---------------------------------------------------------------------------------------------
// Traits with default methods and associated consts.
// ---------------------------------------------------------------------------------------------

pub trait Crop {
    /// Crop length; the default is the wide model's.
    const LEN: usize = 40;

    fn crop(&self, x: Tensor<2>) -> Tensor<2> {
        x.narrow(1, 0, Self::LEN) // expect: narrow-out-of-range (miss: a trait default method reading Self::LEN, whose default 40 the impl for Wide keeps)
    }
}

pub struct Tiny;
pub struct Wide;

impl Crop for Tiny {
    const LEN: usize = 8;
}

impl Crop for Wide {}

pub fn crops(device: &Device) -> (Tensor<2>, Tensor<2>) {
    (Tiny.crop(scores(device)), Wide.crop(scores(device)))
}

pub trait Ranker {
    const K: usize = 50;

    fn k(&self) -> usize {
        Self::K
    }

    fn rank(&self, x: Tensor<2>) -> Tensor<2> {
        let k = self.k();
        x.topk(k, 1) // ok (every impl overrides k() with at most 12; the default is never used)
    }
}

pub struct Shortlist;
pub struct FullList;

impl Ranker for Shortlist {
    fn k(&self) -> usize {
        3
    }
}

impl Ranker for FullList {
    fn k(&self) -> usize {
        WIDTH
    }
}

pub fn ranked(device: &Device) -> (Tensor<2>, Tensor<2>) {
    (Shortlist.rank(scores(device)), FullList.rank(scores(device)))
}

// ---------------------------------------------------------------------------------------------
// Methods of the same name on different types, trait objects.
// ---------------------------------------------------------------------------------------------

pub struct Encoder;
pub struct Decoder;

impl Encoder {
    pub fn width(&self) -> usize {
        WIDTH
    }
}

impl Decoder {
    /// The decoder's width (its rows are 40 wide).
    pub fn width(&self) -> usize {
        40
    }
}

pub fn encoder_view(device: &Device) -> Tensor<2> {
    scores(device).narrow(1, 0, Encoder.width()) // ok (the encoder's 12)
}

pub fn decoder_view(device: &Device) -> Tensor<2> {
    Tensor::<2>::zeros([BATCH, 40], device).narrow(1, 0, Decoder.width()) // ok (40 of 40)
}

pub fn decoder_width_on_encoder_rows(device: &Device) -> Tensor<2> {
    scores(device).narrow(1, 0, Decoder.width()) // expect: narrow-out-of-range
}

pub trait Budget {
    fn k(&self) -> usize;
}

pub struct Small;
pub struct Large;

impl Budget for Small {
    fn k(&self) -> usize {
        4
    }
}

impl Budget for Large {
    fn k(&self) -> usize {
        64
    }
}

pub fn top_by_budget(device: &Device) -> Tensor<2> {
    let budget: Box<dyn Budget> = Box::new(Small);
    scores(device).topk(budget.k(), 1) // ok (the boxed Small: 4)
}

pub fn top_by_budgets(device: &Device) -> Vec<Tensor<2>> {
    let budgets: Vec<Box<dyn Budget>> = vec![Box::new(Small), Box::new(Small)];
    budgets.iter().map(|b| scores(device).topk(b.k(), 1)).collect() // ok (two Smalls: 4)
}

pub fn large_budget() -> Box<dyn Budget> {
    Box::new(Large)
}

// ---------------------------------------------------------------------------------------------
// Generic helpers over const generics and type parameters.
// ---------------------------------------------------------------------------------------------

fn top<const K: usize>(x: Tensor<2>) -> Tensor<2> {
    x.topk(K, 1) // ok (only called with K = 4 and K = 12)
}

fn heads<const H: usize>(x: Tensor<3>) -> Tensor<4> {
    let [b, t, d] = x.dims();
    x.reshape([b, t, H, d / H]) // ok (H = 4 and 8 divide 64)
}

fn best<const K: usize>(x: Tensor<2>) -> Tensor<2> {
    x.topk(K, 1) // expect: topk-k-out-of-range
}

pub fn generic_calls(device: &Device) -> (Tensor<2>, Tensor<2>, Tensor<4>, Tensor<4>) {
    let x = Tensor::<3>::zeros([2, 8, 64], device);
    (top::<4>(scores(device)), top::<WIDTH>(scores(device)), heads::<4>(x.clone()), heads::<8>(x))
}

pub fn best_calls(device: &Device) -> (Tensor<2>, Tensor<2>) {
    (best::<3>(scores(device)), best::<30>(scores(device)))
}

pub struct Window<const N: usize>;

impl<const N: usize> Window<N> {
    pub fn take(&self, x: Tensor<2>) -> Tensor<2> {
        x.narrow(1, WIDTH - N, N) // ok (only Window::<6> and Window::<12> are built)
    }
}

pub fn windows(device: &Device) -> (Tensor<2>, Tensor<2>) {
    (Window::<6>.take(scores(device)), Window::<WIDTH>.take(scores(device)))
}

pub trait Layout {
    const AXIS: isize;
}

pub struct ChannelsLast;
pub struct ChannelsFirst;

impl Layout for ChannelsLast {
    const AXIS: isize = -1;
}

impl Layout for ChannelsFirst {
    const AXIS: isize = 1;
}

fn drop_channel_axis<L: Layout>(x: Tensor<3>) -> Tensor<2> {
    x.squeeze_dim::<2>(L::AXIS) // ok (only called with ChannelsLast: the last axis has size 1)
}

pub fn gray_rows(device: &Device) -> Tensor<2> {
    let gray = Tensor::<3>::zeros([BATCH, WIDTH, 1], device);
    drop_channel_axis::<ChannelsLast>(gray)
}

fn crop_with<C: Crop>(c: &C, x: Tensor<2>) -> Tensor<2> {
    c.crop(x)
}

pub fn tiny_crop(device: &Device) -> Tensor<2> {
    crop_with(&Tiny, scores(device))
}

// ---------------------------------------------------------------------------------------------
// `macro_rules!` helpers.
// ---------------------------------------------------------------------------------------------

macro_rules! leading {
    ($x:expr, $len:expr) => {
        $x.narrow(1, 0, usize::min($len, WIDTH))
    };
}

macro_rules! norm_for {
    ($channels:expr, $device:expr) => {
        GroupNormConfig::new(gcd(8, $channels), $channels).init($device)
    };
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

pub fn macro_calls(device: &Device) -> (Tensor<2>, GroupNorm, GroupNorm) {
    let head = leading!(scores(device), 40); // ok (the macro clamps 40 to 12)
    let stem = norm_for!(CHANNELS, device); // ok (gcd(8, 48) = 8)
    let text = norm_for!(36, device); // ok (gcd(8, 36) = 4 divides 36)
    (head, stem, text)
}

// ---------------------------------------------------------------------------------------------
// Tests of the panics.
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic]
    fn wide_crop_panics() {
        let device = Default::default();
        let x = Tensor::<2>::zeros([BATCH, WIDTH], &device);
        let _ = x.narrow(1, 0, 40); // ok (a should_panic test)
    }

    #[test]
    #[should_panic]
    fn bad_groups_panic() {
        let device = Default::default();
        let _ = GroupNormConfig::new(5, CHANNELS).init(&device); // ok (a should_panic test)
    }

    #[test]
    fn host_crop_keeps_what_there_is() {
        let x = host::Tensor::zeros(2, 3).narrow(1, 1, 10); // ok (the crate's own Tensor)
        assert_eq!(x.rows[0].len(), 2);
    }
}

//! Generic and iterator-heavy code: functions generic over `const D: usize` called with several
//! ranks, a trait with an associated const implemented by models of different widths, an
//! `impl<M: Classifier>` block, iterator chains (`zip`, `enumerate`, `fold`, slice `windows` and
//! `chunks`), closures stored in variables and called with several values, `macro_rules!` that
//! build layers and whole modules, a helper used only by the tests, and `#[should_panic]` tests.

use burn::nn::{GroupNorm, GroupNormConfig, Linear, LinearConfig, Relu};
use burn::prelude::*;
use burn::tensor::Distribution;

const BATCH: usize = 4;
const WIDTH: usize = 12;

fn scores(device: &Device) -> Tensor<2> {
    Tensor::<2>::random([BATCH, WIDTH], Distribution::Default, device)
}

fn tokens(device: &Device) -> Tensor<3> {
    Tensor::<3>::random([BATCH, 6, 8], Distribution::Default, device)
}

fn images(device: &Device) -> Tensor<4> {
    Tensor::<4>::random([2, 3, 8, 8], Distribution::Default, device)
}

// ---------------------------------------------------------------------------------------------
// Functions generic over the rank.
// ---------------------------------------------------------------------------------------------

/// The last `n` entries along the last dim, whatever the rank (`n` capped at the size).
pub fn last_n<const D: usize>(x: Tensor<D>, n: usize) -> Tensor<D> {
    let size = x.dims()[D - 1];
    let n = n.min(size).max(1);
    x.narrow(D - 1, size - n, n) // ok (start + n == size for every rank)
}

pub fn top_last<const D: usize>(x: Tensor<D>, k: usize) -> Tensor<D> {
    x.topk(k, D - 1) // ok (each caller's k fits its own last dim: 12 of 12, 8 of 8, 5 of 8)
}

pub fn rows_first<const D: usize>(x: Tensor<D>) -> Tensor<2> {
    let rows = x.dims()[0];
    x.reshape([rows as i32, -1]) // ok (-1 takes the rest at any rank)
}

pub fn mean_last<const D: usize, const D2: usize>(x: Tensor<D>) -> Tensor<D2> {
    x.mean_dim(D - 1).squeeze_dim::<D2>(D - 1) // ok (mean_dim leaves a 1 there)
}

pub fn by_rank(device: &Device) -> (Tensor<2>, Tensor<3>, Tensor<4>, Tensor<1>, Tensor<2>) {
    let a = last_n(scores(device), 4);
    let b = last_n(tokens(device), 8);
    let c = last_n(images(device), 20);
    let _ = top_last(scores(device), WIDTH);
    let _ = top_last(tokens(device), 8);
    let _ = top_last(images(device), 5);
    let _ = rows_first(images(device)).matmul(Tensor::<2>::ones([192, 4], device)); // ok ([2, 192] x [192, 4])
    let _ = rows_first(tokens(device)).narrow(1, 40, 8); // ok ([4, 48])
    (a, b, c, mean_last::<2, 1>(scores(device)), mean_last::<3, 2>(tokens(device)))
}

// ---------------------------------------------------------------------------------------------
// A trait with an associated const, implemented by models of different widths.
// ---------------------------------------------------------------------------------------------

pub trait Classifier {
    const CLASSES: usize;

    fn logits(&self, x: Tensor<2>) -> Tensor<2>;

    fn top1(&self, x: Tensor<2>) -> Tensor<2> {
        self.logits(x).topk(1, 1) // ok
    }

    fn ranked(&self, x: Tensor<2>) -> Tensor<2> {
        self.logits(x).topk(Self::CLASSES, 1) // ok (each impl's CLASSES is its head's width)
    }
}

#[derive(Module, Debug)]
pub struct Tiny {
    head: Linear,
}

impl Tiny {
    pub fn new(device: &Device) -> Self {
        Self { head: LinearConfig::new(WIDTH, 3).init(device) }
    }
}

impl Classifier for Tiny {
    const CLASSES: usize = 3;

    fn logits(&self, x: Tensor<2>) -> Tensor<2> {
        self.head.forward(x)
    }
}

#[derive(Module, Debug)]
pub struct Wide {
    hidden: Linear,
    act: Relu,
    head: Linear,
}

impl Wide {
    pub fn new(device: &Device) -> Self {
        Self {
            hidden: LinearConfig::new(WIDTH, 64).init(device),
            act: Relu::new(),
            head: LinearConfig::new(64, 100).init(device),
        }
    }
}

impl Classifier for Wide {
    const CLASSES: usize = 100;

    fn logits(&self, x: Tensor<2>) -> Tensor<2> {
        self.head.forward(self.act.forward(self.hidden.forward(x)))
    }
}

pub fn top5<M: Classifier>(model: &M, x: Tensor<2>) -> Tensor<2> {
    let k = 5.min(M::CLASSES);
    model.logits(x).topk(k, 1) // ok (3 for Tiny, 5 for Wide)
}

pub fn halves<M: Classifier>(model: &M, x: Tensor<2>) -> Vec<Tensor<2>> {
    let half = M::CLASSES / 2;
    model.logits(x).split_with_sizes(vec![half, M::CLASSES - half], 1) // ok (1 + 2 and 50 + 50)
}

pub struct Ensemble<M: Classifier> {
    members: Vec<M>,
}

impl<M: Classifier> Ensemble<M> {
    pub fn new(members: Vec<M>) -> Self {
        assert!(!members.is_empty(), "an ensemble needs a member");
        Self { members }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let outputs: Vec<Tensor<2>> = self.members.iter().map(|m| m.logits(x.clone())).collect();
        Tensor::stack::<3>(outputs, 0).mean_dim(0).squeeze_dim::<2>(0) // ok (same head for every member)
    }

    pub fn best(&self, x: Tensor<2>) -> Tensor<2> {
        self.forward(x).topk(M::CLASSES, 1) // ok
    }
}

pub fn classify(device: &Device) -> Vec<Tensor<2>> {
    let tiny = Tiny::new(device);
    let wide = Wide::new(device);
    let mut out = vec![tiny.top1(scores(device)), wide.ranked(scores(device))];
    out.push(top5(&tiny, scores(device)));
    out.push(top5(&wide, scores(device)));
    out.extend(halves(&tiny, scores(device)));
    out.extend(halves(&wide, scores(device)));
    let ensemble = Ensemble::new(vec![Tiny::new(device), Tiny::new(device)]);
    out.push(ensemble.best(scores(device)));
    out
}

// ---------------------------------------------------------------------------------------------
// Iterators.
// ---------------------------------------------------------------------------------------------

pub fn mlp(widths: &[usize], device: &Device) -> Vec<Linear> {
    widths
        .windows(2) // ok (a slice's windows, not burn-dataset's)
        .map(|pair| LinearConfig::new(pair[0], pair[1]).init(device))
        .collect()
}

pub fn mlp_forward(device: &Device) -> Tensor<2> {
    let layers = mlp(&[WIDTH, 32, 16, 8], device);
    let x = layers.iter().fold(scores(device), |x, layer| layer.forward(x));
    x.topk(8, 1) // ok (the last layer has 8 outputs)
}

pub fn norms(device: &Device) -> Vec<GroupNorm> {
    let groups = [1, 2, 4, 8];
    let channels = [16, 32, 64, 128];
    groups
        .iter()
        .zip(channels.iter())
        .map(|(&g, &c)| GroupNormConfig::new(g, c).init(device)) // ok (each pair divides)
        .collect()
}

pub fn norms_sweep(device: &Device) -> Vec<GroupNorm> {
    let mut out = Vec::new();
    for (groups, channels) in [(4, 48), (5, 48)] {
        out.push(GroupNormConfig::new(groups, channels).init(device)); // expect: group-norm-groups-divide-channels
    }
    out
}

pub fn column_blocks(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    [4, 4, 4]
        .iter()
        .enumerate()
        .map(|(i, &len)| x.clone().narrow(1, i * 4, len)) // ok (starts 0, 4, 8; the last ends at 12)
        .collect()
}

pub fn chunk_sums(device: &Device) -> Vec<Tensor<2>> {
    let widths = [2, 3, 4, 3];
    let sizes: Vec<usize> = widths.chunks(2).map(|pair| pair.iter().sum()).collect();
    scores(device).split_with_sizes(sizes, 1) // ok (5 + 7 = 12)
}

pub fn offsets(device: &Device) -> Vec<Tensor<2>> {
    let x = scores(device);
    let (_, parts) = [3, 4, 5].iter().fold((0, Vec::new()), |(start, mut parts), &len| {
        parts.push(x.clone().narrow(1, start, len)); // ok (0 + 3, 3 + 4, 7 + 5 = 12)
        (start + len, parts)
    });
    parts
}

pub fn total_width(device: &Device) -> Tensor<2> {
    let total = [4, 4, 8].iter().fold(0, |acc, w| acc + w);
    scores(device).narrow(1, 0, total) // expect: narrow-out-of-range
}

// ---------------------------------------------------------------------------------------------
// Closures stored in variables.
// ---------------------------------------------------------------------------------------------

pub fn crops(device: &Device) -> [Tensor<2>; 3] {
    let x = scores(device);
    let crop = |len: usize| x.clone().narrow(1, WIDTH - len, len); // ok (called with 4, 8, 12)
    [crop(4), crop(8), crop(WIDTH)]
}

pub fn tops(device: &Device) -> [Tensor<2>; 3] {
    let top = |t: Tensor<2>, k: usize| t.topk(k, 1); // ok (each k is its tensor's width)
    let narrow_scores = Tensor::<2>::random([BATCH, 3], Distribution::Default, device);
    let wide_scores = Tensor::<2>::random([BATCH, 40], Distribution::Default, device);
    [top(scores(device), WIDTH), top(narrow_scores, 3), top(wide_scores, 40)]
}

pub fn picked(device: &Device) -> Tensor<2> {
    let pick = |t: Tensor<2>| t.topk(16, 1); // expect: topk-k-out-of-range
    pick(scores(device))
}

// ---------------------------------------------------------------------------------------------
// Macros.
// ---------------------------------------------------------------------------------------------

macro_rules! linear {
    ($d_in:expr => $d_out:expr, $device:expr) => {
        LinearConfig::new($d_in, $d_out).init($device)
    };
}

macro_rules! norm {
    ($groups:expr, $channels:expr, $device:expr) => {
        GroupNormConfig::new($groups, $channels).init($device) // ok (every use passes a divisor)
    };
}

macro_rules! head_model {
    ($name:ident, $classes:expr) => {
        #[derive(Module, Debug)]
        pub struct $name {
            head: Linear,
        }

        impl $name {
            pub fn new(device: &Device) -> Self {
                Self { head: LinearConfig::new(WIDTH, $classes).init(device) }
            }

            pub fn ranked(&self, x: Tensor<2>) -> Tensor<2> {
                self.head.forward(x).topk($classes, 1) // ok (k == the head's classes in each expansion)
            }
        }
    };
}

head_model!(SentimentHead, 3);
head_model!(TopicHead, 20);

pub fn macro_layers(device: &Device) -> (Vec<Linear>, Vec<GroupNorm>) {
    let layers = vec![linear!(WIDTH => 24, device), linear!(24 => 6, device)];
    let norms = vec![
        norm!(3, 24, device),  // ok
        norm!(6, 6, device),   // ok
        norm!(8, 64, device),  // ok
    ];
    (layers, norms)
}

pub fn macro_forward(device: &Device) -> (Vec<Tensor<2>>, Tensor<2>, Tensor<2>) {
    let (layers, _) = macro_layers(device);
    let x = layers.iter().fold(scores(device), |x, layer| layer.forward(x));
    let parts = x.split_with_sizes(vec![3, 3], 1); // ok (6 outputs)
    let sentiment = SentimentHead::new(device).ranked(scores(device));
    let topic = TopicHead::new(device).ranked(scores(device));
    (parts, sentiment, topic)
}

// ---------------------------------------------------------------------------------------------
// A helper only the tests call, and tests that expect a panic.
// ---------------------------------------------------------------------------------------------

/// Used by the tests only.
pub fn window_of(x: Tensor<2>, start: usize, len: usize) -> Tensor<2> {
    x.narrow(1, start, len) // ok (the tests call it with 0..6 and 6..12)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device() -> Device {
        Default::default()
    }

    fn crop_front(x: Tensor<2>, len: usize) -> Tensor<2> {
        x.narrow(1, 0, len) // ok (called with 12)
    }

    #[test]
    fn windows_cover_the_row() {
        let x = scores(&device());
        let a = window_of(x.clone(), 0, 6);
        let b = window_of(x.clone(), 6, 6);
        assert_eq!(a.dims(), b.dims());
        assert_eq!(crop_front(x, WIDTH).dims(), [BATCH, WIDTH]);
    }

    #[test]
    #[should_panic]
    fn topk_past_the_width() {
        let _ = scores(&device()).topk(WIDTH + 1, 1); // ok (a should_panic test)
    }

    #[test]
    #[should_panic = "divisible"]
    fn groups_that_do_not_divide() {
        let _ = GroupNormConfig::new(5, 48).init(&device()); // ok (a should_panic test)
    }
}

//! A two-tower recommender: user and item Embedding lookups, dot-product scores by `mul` and
//! `sum_dim`, a ranking of the catalog by `matmul`, candidates by `topk`/`argtopk`, pages of
//! the ranking, and a sampled softmax over negatives picked by `select`.

use burn::nn::loss::{CrossEntropyLoss, CrossEntropyLossConfig};
use burn::nn::{Embedding, EmbeddingConfig, Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::Distribution;

use crate::hparams::recsys::{ITEM_DIM, N_ITEMS, N_NEGATIVES, N_USERS, PAGE_SIZE, USER_DIM};

/// The merchandisers' shortlist for the home page.
pub mod shortlist {
    /// Item ids pinned by hand, in display order.
    pub static PINNED: [i64; 20] = [
        0, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 1, 4, 6, 8,
    ];
    /// Slots of the home page carousel.
    pub const SLOTS: usize = 8;
}

#[derive(Module, Debug)]
pub struct TwoTower {
    users: Embedding,
    items: Embedding,
    user_proj: Linear,
}

/// Widths of the towers: the item width defaults to the user width, the user projection to
/// the item width.
#[derive(Clone, Debug)]
pub struct TowerSpec {
    pub user_dim: usize,
    pub item_dim: Option<usize>,
    pub projection: Option<usize>,
}

impl TowerSpec {
    /// The production widths: narrow item vectors keep the index small.
    pub fn compact() -> Self {
        Self {
            user_dim: USER_DIM,
            item_dim: Some(ITEM_DIM),
            projection: None,
        }
    }

    pub fn init(&self, device: &Device) -> TwoTower {
        let item_dim = self.item_dim.unwrap_or(self.user_dim);
        let projected = self.projection.unwrap_or(item_dim);
        TwoTower {
            users: EmbeddingConfig::new(N_USERS, self.user_dim).init(device),
            items: EmbeddingConfig::new(N_ITEMS, item_dim).init(device),
            user_proj: LinearConfig::new(self.user_dim, projected).init(device),
        }
    }
}

impl TwoTower {
    /// Dot product of each (user, item) pair: ids [batch, 1] -> [batch, 1, 1].
    fn raw_scores(&self, users: Tensor<2, Int>, items: Tensor<2, Int>) -> Tensor<3> {
        let u = self.users.forward(users);
        let v = self.items.forward(items);
        (u * v).sum_dim(2) // expect: binary-op-incompatible-shapes (miss: embeddings of a module's fields whose widths its config's init set: a struct holding modules gets no `self` from its callers)
    }

    /// The same with the users projected into the item space first.
    fn projected_scores(&self, users: Tensor<2, Int>, items: Tensor<2, Int>) -> Tensor<3> {
        let u = self.user_proj.forward(self.users.forward(users));
        let v = self.items.forward(items);
        (u * v).sum_dim(2) // ok (both 32 wide)
    }

    /// Every item's score for each user: ids [batch] -> [batch, n_items].
    fn catalog_scores(&self, users: Tensor<1, Int>) -> Tensor<2> {
        let u = self.users.forward(users.unsqueeze_dim(1));
        let u = self.user_proj.forward(u).squeeze_dim::<2>(1);
        let table = self.items.weight.val();
        u.matmul(table.transpose()) // expect: matmul-inner-dim-mismatch (miss: a module's fields sized by its config's init: a struct holding modules gets no `self` from its callers)
    }
}

fn batch_ids(device: &Device) -> (Tensor<2, Int>, Tensor<2, Int>) {
    let users = Tensor::<2, Int>::from_data([[3], [17], [256], [999]], device);
    let items = Tensor::<2, Int>::from_data([[0], [4], [9], [49]], device);
    (users, items)
}

pub fn score_pairs(device: &Device) -> Tensor<3> {
    let tower = TowerSpec::compact().init(device);
    let (users, items) = batch_ids(device);
    tower.raw_scores(users, items)
}

pub fn score_pairs_projected(device: &Device) -> Tensor<3> {
    let tower = TowerSpec::compact().init(device);
    let (users, items) = batch_ids(device);
    tower.projected_scores(users, items)
}

/// Ranks the whole catalog with a projection as wide as the user vectors.
pub fn rank_catalog(device: &Device) -> Tensor<2> {
    let wide = TowerSpec {
        projection: Some(USER_DIM),
        ..TowerSpec::compact()
    };
    let tower = wide.init(device);
    let users = Tensor::<1, Int>::from_ints([3, 17], device);
    tower.catalog_scores(users)
}

/// A user's id embedding next to dense features (age bucket, tenure, activity...).
fn user_features(ids: Tensor<3>, dense: Tensor<2>) -> Tensor<3> {
    let dense = dense.unsqueeze_dim::<3>(1);
    Tensor::cat(vec![ids, dense], 1) // expect: cat-mismatched-shapes
}

pub fn user_vectors(device: &Device) -> Tensor<3> {
    let tower = TowerSpec::compact().init(device);
    let (users, _) = batch_ids(device);
    let ids = tower.users.forward(users);
    let dense = Tensor::<2>::random([4, 16], Distribution::Default, device);
    user_features(ids, dense)
}

pub fn user_vectors_wide(device: &Device) -> Tensor<3> {
    let tower = TowerSpec::compact().init(device);
    let (users, _) = batch_ids(device);
    let ids = tower.users.forward(users);
    let dense = Tensor::<2>::random([4, 16], Distribution::Default, device);
    Tensor::cat(vec![ids, dense.unsqueeze_dim(1)], 2) // ok (80 features per user)
}

/// Scores of each user's positive item followed by `N_NEGATIVES` sampled items.
fn sampled_logits(device: &Device) -> Tensor<3> {
    let tower = TowerSpec::compact().init(device);
    let (users, positives) = batch_ids(device);
    let u = tower.user_proj.forward(tower.users.forward(users));
    let negatives = Tensor::<2, Int>::random(
        [4, N_NEGATIVES],
        Distribution::Uniform(0.0, N_ITEMS as f64),
        device,
    );
    let candidates = Tensor::cat(vec![positives, negatives], 1); // ok (4 rows each)
    let v = tower.items.forward(candidates);
    (u * v).sum_dim(2) // ok ([4, 1, 32] against [4, 6, 32])
}

/// Class weights of the sampled softmax: the positive column only.
fn positive_only(width: usize) -> Vec<f32> {
    (0..width).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect()
}

/// Class weights of the sampled softmax: the negatives share the positive's weight.
fn balanced(width: usize) -> Vec<f32> {
    (0..width)
        .map(|i| if i == 0 { 1.0 } else { 1.0 / (width - 1) as f32 })
        .collect()
}

pub fn sampled_softmax(device: &Device) -> (Tensor<2>, CrossEntropyLoss) {
    let logits = sampled_logits(device);
    let [_, width, _] = logits.dims();
    let flat = logits.clone().squeeze_dim::<2>(2); // ok (the score axis has size 1)
    let squeezed = logits.squeeze_dim::<2>(1); // expect: squeeze-dim-not-one
    let loss = CrossEntropyLossConfig::new().with_weights(Some(positive_only(width))).init(device); // expect: cross-entropy-weights-positive
    (flat + squeezed, loss)
}

pub fn balanced_loss(device: &Device) -> CrossEntropyLoss {
    CrossEntropyLossConfig::new().with_weights(Some(balanced(N_NEGATIVES + 1))).init(device) // ok (1.0 and five 0.2)
}

/// Repeats each user's vector for its negatives.
fn tile_users(u: Tensor<2>, n: usize) -> Tensor<3> {
    let [batch, dim] = u.dims();
    u.expand([batch, n, dim]) // expect: expand-incompatible-shape
}

pub fn tiled_users(device: &Device) -> (Tensor<3>, Tensor<3>) {
    let u = Tensor::<2>::random([4, ITEM_DIM], Distribution::Default, device);
    let [batch, dim] = u.dims();
    let tiled = u.clone().unsqueeze_dim::<3>(1).expand([batch, N_NEGATIVES, dim]); // ok (the new axis has size 1)
    (tiled, tile_users(u, N_NEGATIVES))
}

/// Offline ranking evaluation.
#[derive(Clone, Debug, Default)]
pub struct RankingEval {
    k: Option<usize>,
    exclude_seen: bool,
}

impl RankingEval {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_k(self, k: usize) -> Self {
        Self { k: Some(k), ..self }
    }

    pub fn with_exclude_seen(self, exclude_seen: bool) -> Self {
        Self {
            exclude_seen,
            ..self
        }
    }

    fn top(&self, scores: Tensor<2>) -> Tensor<2> {
        scores.topk(self.k.unwrap_or(10), 1) // expect: topk-k-out-of-range
    }
}

/// Recall@100, as in the paper.
pub fn recall_at_100(device: &Device) -> Tensor<2> {
    let scores = Tensor::<2>::random([2, N_ITEMS], Distribution::Default, device);
    RankingEval::new().with_exclude_seen(true).with_k(100).top(scores)
}

pub fn first_page(device: &Device) -> Tensor<2> {
    let scores = Tensor::<2>::random([2, N_ITEMS], Distribution::Default, device);
    scores.topk(PAGE_SIZE, 1) // ok (20 of 50)
}

pub fn top_from_cli(scores: Tensor<2>) -> Tensor<2> {
    let k = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    scores.topk(k, 1) // ok (k from the command line)
}

/// The pinned items in the order the model prefers them.
pub fn pinned_order(device: &Device) -> (Tensor<2, Int>, Tensor<2, Int>) {
    let scores = Tensor::<2>::random([2, N_ITEMS], Distribution::Default, device);
    let pinned = Tensor::<1, Int>::from_ints(shortlist::PINNED, device);
    let pinned_scores = scores.select(1, pinned);
    let carousel = pinned_scores.clone().argtopk(shortlist::SLOTS, 1); // ok (8 of 20)
    let all = pinned_scores.argtopk(shortlist::PINNED.len(), 1); // expect: argtopk-k-not-below-size
    (carousel, all)
}

/// Serves one page of a ranking at a time.
pub struct Pager<F: Fn(Tensor<2>, usize) -> Tensor<2>> {
    pub page_size: usize,
    pub fetch: F,
}

pub fn third_page(device: &Device) -> Tensor<2> {
    let ranked = Tensor::<2>::random([2, N_ITEMS], Distribution::Default, device).sort_descending(1);
    let pager = Pager {
        page_size: PAGE_SIZE,
        fetch: |ranked: Tensor<2>, page: usize| ranked.narrow(1, page * PAGE_SIZE, PAGE_SIZE), // expect: narrow-out-of-range (miss: a closure stored in a struct field and called through the field is not followed)
    };
    (pager.fetch)(ranked, 2)
}

pub fn second_page(device: &Device) -> Tensor<2> {
    let ranked = Tensor::<2>::random([2, N_ITEMS], Distribution::Default, device).sort_descending(1);
    let pager = Pager {
        page_size: PAGE_SIZE,
        fetch: |ranked: Tensor<2>, page: usize| ranked.narrow(1, page * PAGE_SIZE, PAGE_SIZE), // ok (items 20..40 of 50)
    };
    (pager.fetch)(ranked, 1)
}

/// Each user's history cut into windows of `W` consecutive items.
fn windows_of<const W: usize>(history: Tensor<2, Int>) -> Tensor<3, Int> {
    let [batch, _] = history.dims();
    history.reshape([batch as i64, -1, W as i64]) // expect: reshape-incompatible-shape
}

pub fn session_triples(device: &Device) -> Tensor<3, Int> {
    let history = Tensor::<2, Int>::zeros([8, 10], device);
    windows_of::<3>(history)
}

pub fn session_pairs(device: &Device) -> Tensor<3, Int> {
    let history = Tensor::<2, Int>::zeros([8, 10], device);
    let [batch, _] = history.dims();
    history.reshape([batch as i64, -1, 5]) // ok (two windows of five)
}

/// A ranking precomputed offline and kept on the host.
pub struct Catalog {
    ids: Vec<usize>,
}

impl Catalog {
    pub fn topk(&self, k: usize, _dim: usize) -> Vec<usize> {
        self.ids.iter().copied().take(k).collect()
    }
}

pub fn cached_top() -> Vec<usize> {
    let catalog = Catalog { ids: vec![4, 9, 0] };
    catalog.topk(100, 1) // ok (the crate's own topk)
}

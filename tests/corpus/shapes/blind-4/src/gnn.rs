//! A graph network: messages gathered from source nodes by `select`, summed into destination
//! nodes by `scatter`, degree normalisation, a dense-adjacency variant, attention heads split by
//! `reshape`, edge features joined to node features, a graph readout and top-k node pooling.

use burn::nn::{Linear, LinearConfig, RmsNorm, RmsNormConfig};
use burn::prelude::*;
use burn::tensor::IndexingUpdateOp;
use burn::tensor::activation::relu;

use crate::hparams::{EDGE_FEATS, HIDDEN, N_EDGES, N_NODES, NODE_FEATS};

/// Widths of the message-passing stack, input first.
static WIDTHS: [usize; 4] = [NODE_FEATS, HIDDEN, HIDDEN, 16];

#[derive(Debug, Clone)]
pub struct GnnConfig {
    pub in_feats: usize,
    pub hidden: usize,
    pub heads: usize,
}

impl Default for GnnConfig {
    fn default() -> Self {
        Self { in_feats: NODE_FEATS, hidden: HIDDEN, heads: 4 }
    }
}

#[derive(Module, Debug)]
pub struct MessagePassing {
    message: Linear,
    update: Linear,
}

impl MessagePassing {
    pub fn new(d_in: usize, d_out: usize, device: &Device) -> Self {
        Self {
            message: LinearConfig::new(d_in, d_out).init(device),
            update: LinearConfig::new(d_in, d_out).init(device),
        }
    }

    /// Sum of the messages of each node's in-edges, divided by its in-degree.
    pub fn forward(&self, x: Tensor<2>, src: Tensor<1, Int>, dst: Tensor<1, Int>) -> Tensor<2> {
        let [n, _] = x.dims();
        let [e] = src.dims();
        let device = x.device();

        let messages = self.message.forward(x.clone().select(0, src));
        let [_, d_out] = messages.dims();
        let index = dst.clone().reshape([e, 1]).repeat_dim(1, d_out); // ok
        let summed = Tensor::<2>::zeros([n, d_out], &device).scatter(0, index, messages, IndexingUpdateOp::Add);

        let ones = Tensor::<1>::ones([e], &device);
        let degree = Tensor::<1>::zeros([n], &device).select_assign(0, dst, ones, IndexingUpdateOp::Add);
        let degree = degree.clamp_min(1.0).unsqueeze_dim::<2>(1);
        relu(self.update.forward(x) + summed / degree) // ok ([n, d] + [n, d] / [n, 1])
    }
}

/// Graph attention: one score per head and node.
#[derive(Module, Debug)]
pub struct GatLayer {
    proj: Linear,
    heads: usize,
}

impl GatLayer {
    pub fn new(cfg: &GnnConfig, device: &Device) -> Self {
        Self { proj: LinearConfig::new(cfg.in_feats, cfg.hidden).init(device), heads: cfg.heads }
    }

    /// `[n, hidden]` -> `[n, heads, hidden / heads]`.
    pub fn split(&self, h: Tensor<2>) -> Tensor<3> {
        let [n, _] = h.dims();
        h.reshape([n as i32, self.heads as i32, -1]) // expect: reshape-incompatible-shape (miss: 32n elements into [n, 3, -1] fails for every n; with n unknown the count is not decided)
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<3> {
        self.split(self.proj.forward(x))
    }
}

#[derive(Debug, Clone, Copy)]
pub enum NormKind {
    Rms,
    Layer,
}

/// `(use_rms, epsilon)` for each kind of node norm.
fn norm_settings(kind: NormKind) -> (bool, f64) {
    match kind {
        NormKind::Rms => (true, 0.0),
        NormKind::Layer => (false, 1e-5),
    }
}

pub fn node_norms(device: &Device) -> (RmsNorm, RmsNorm) {
    let (_, eps) = norm_settings(NormKind::Layer);
    let stable = RmsNormConfig::new(HIDDEN).with_epsilon(eps).init(device); // ok (1e-5)

    let (use_rms, eps) = norm_settings(NormKind::Rms);
    assert!(use_rms);
    let bare = RmsNormConfig::new(HIDDEN).with_epsilon(eps).init(device); // expect: rms-norm-epsilon-positive
    (stable, bare)
}

/// Node pooling that keeps the best-scored nodes.
pub struct TopKPool;

impl TopKPool {
    pub const RATIO: f32 = 0.5;
    /// Nodes kept by the fixed-size variant.
    pub const KEEP: usize = 12;
}

/// The crate's own top-k over scores already on the host.
pub fn topk(scores: &[f32], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    order.into_iter().take(k).collect()
}

/// Probes run by the evaluation binary.
pub fn probe(device: &Device) {
    let x = Tensor::<2>::zeros([N_NODES, NODE_FEATS], device);
    let src = Tensor::<1, Int>::arange(0..N_EDGES as i64, device).remainder_scalar(N_NODES as i64);
    let dst = src.clone().add_scalar(1).remainder_scalar(N_NODES as i64);

    // The message-passing stack built from the static widths.
    let stack = (0..WIDTHS.len() - 1)
        .map(|i| MessagePassing::new(WIDTHS[i], WIDTHS[i + 1], device))
        .collect::<Vec<_>>();
    let h = stack[0].forward(x.clone(), src.clone(), dst.clone());

    // Degree normalisation written by hand.
    let summed = Tensor::<2>::zeros([N_NODES, HIDDEN], device);
    let degree = Tensor::<1>::ones([N_NODES], device);
    let _per_node = summed.clone() / degree.clone().unsqueeze_dim::<2>(1); // ok
    let _per_feature = summed / degree.unsqueeze_dim::<2>(0); // expect: binary-op-incompatible-shapes

    // Dense adjacency.
    let adj = TensorData::new(vec![0.0f32; N_NODES * N_NODES], [N_NODES, N_NODES]); // ok
    let adj = Tensor::<2>::from_data(adj, device);
    let _propagated = adj.clone().matmul(x.clone()); // ok ([10, 10] x [10, 16])
    let _wrong_side = x.clone().matmul(adj); // expect: matmul-inner-dim-mismatch

    // A 4-node ring, edge by edge.
    const RING: usize = 4;
    let pairs = TensorData::new(vec![0i64, 1, 1, 2, 2, 3, 3, 0], [RING, 2]); // ok
    let rows = TensorData::new(vec![0i64, 1, 1, 2, 2, 3, 3, 0], [2, RING - 1]); // expect: tensor-data-shape-mismatch
    let _ = (pairs, rows);

    // Coordinates and features of each node.
    let parts = x.clone().split_with_sizes(vec![3, NODE_FEATS - 3], 1); // ok
    let _bad_parts = x.clone().split_with_sizes(vec![3, NODE_FEATS], 1); // expect: split-sizes-sum-mismatch
    let _ = parts;

    // Edge inputs: both endpoints and the edge's own features.
    let x_src = x.clone().select(0, src.clone());
    let x_dst = x.clone().select(0, dst.clone());
    let edge_attr = Tensor::<2>::zeros([N_EDGES, EDGE_FEATS], device);
    let _edges = Tensor::cat(vec![x_src.clone(), x_dst.clone(), edge_attr.clone()], 1); // ok
    let _stacked: Tensor<3> = Tensor::stack(vec![x_src, x_dst, edge_attr], 1); // expect: stack-mismatched-shapes

    // Graph readout.
    let readout = Tensor::cat(vec![h.clone().mean_dim(0), h.clone().max_dim(0)], 1); // ok ([1, 64])
    let _by_rows = Tensor::cat(vec![h.clone().mean_dim(0), h.clone().max_dim(1)], 0); // expect: cat-mismatched-shapes (miss: h is the output of a crate layer taken from a Vec by index (`stack[0].forward(..)`): not followed)
    let _ = readout;

    // Attention heads.
    let four = GatLayer::new(&GnnConfig::default(), device);
    let _heads = four.forward(x.clone());
    let three = GatLayer::new(&GnnConfig { heads: 3, ..Default::default() }, device);
    let _heads = three.forward(x.clone());

    // Top-k pooling of the node scores.
    let scores = Tensor::<2>::zeros([N_NODES, 1], device);
    let k = (N_NODES as f32 * TopKPool::RATIO).ceil() as usize;
    let _half = scores.clone().topk(k, 0); // ok (5 of 10)
    let _fixed = scores.clone().topk(TopKPool::KEEP, 0); // expect: topk-k-out-of-range
    let asked: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let _asked = scores.topk(asked, 0); // ok (k from the command line)

    let host_scores = vec![0.5f32; 100];
    let _best = topk(&host_scores, 50); // ok (the crate's own topk)

    let _norms = node_norms(device);
}

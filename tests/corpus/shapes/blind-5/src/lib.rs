//! blind-5: a speech recogniser, a recommender, a segmentation head, an augmentation pipeline
//! and evaluation metrics, written against burn 0.22's `Tensor<D>` API.

pub mod augment;
pub mod hparams;
pub mod metrics;
pub mod recsys;
pub mod segmentation;
pub mod speech;

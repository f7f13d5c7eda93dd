//! blind-6: losses in a multi-task trainer, normalisation and attention blocks, tensor ops with
//! dim arguments, evaluation metrics and dataset helpers, and a signal / convolution front end,
//! written against burn 0.22's `Tensor<D>` API.

pub mod hparams;
pub mod losses;
pub mod metrics_data;
pub mod norms_attention;
pub mod signal_conv;
pub mod tensor_dims;

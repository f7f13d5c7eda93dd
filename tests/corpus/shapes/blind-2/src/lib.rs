//! Segmentation, text classification, a sensor-data pipeline and a VAE, written the way burn
//! 0.22 users write them.

pub mod hparams;
pub mod pipeline;
pub mod text_classifier;
pub mod unet;
pub mod vae;

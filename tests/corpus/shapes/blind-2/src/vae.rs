//! A fully connected VAE on 28x28 grey images: the encoder gives the mean and the
//! log-variance (one Linear to `2 * latent`, split in two), the reparameterisation trick, a
//! decoder back to images, and the loss (MSE reconstruction plus KL). Then the probes and
//! the sample grid for the report.
use burn::nn::loss::{MseLoss, Reduction};
use burn::nn::{Dropout, DropoutConfig, GroupNorm, GroupNormConfig, Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::{relu, sigmoid};

use crate::hparams::{BATCH_SIZE, DROPOUT, HIDDEN_DIM, LATENT_DIM};

pub const IMAGE_SIDE: usize = 28;

#[derive(Config, Debug)]
pub struct VaeConfig {
    pub latent_dim: usize,
    #[config(default = 400)]
    pub hidden_dim: usize,
    #[config(default = 28)]
    pub image_side: usize,
    #[config(default = 0.1)]
    pub dropout: f64,
}

#[derive(Module, Debug)]
pub struct Vae {
    encoder: Linear,
    to_stats: Linear,
    decoder_hidden: Linear,
    decoder_out: Linear,
    dropout: Dropout,
    latent_dim: usize,
    image_side: usize,
}

impl VaeConfig {
    pub fn init(&self, device: &Device) -> Vae {
        let pixels = self.image_side * self.image_side;
        Vae {
            encoder: LinearConfig::new(pixels, self.hidden_dim).init(device),
            to_stats: LinearConfig::new(self.hidden_dim, 2 * self.latent_dim).init(device),
            decoder_hidden: LinearConfig::new(self.latent_dim, self.hidden_dim).init(device),
            decoder_out: LinearConfig::new(self.hidden_dim, pixels).init(device),
            dropout: DropoutConfig::new(self.dropout).init(), // ok
            latent_dim: self.latent_dim,
            image_side: self.image_side,
        }
    }
}

pub struct VaeOutput {
    pub reconstruction: Tensor<4>,
    pub mean: Tensor<2>,
    pub log_var: Tensor<2>,
}

impl Vae {
    /// Images `[batch, 1, side, side]` to the mean and log-variance `[batch, latent]`.
    pub fn encode(&self, images: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let [batch, channels, height, width] = images.dims();
        let x = images.reshape([batch, channels * height * width]); // ok
        let hidden = self.dropout.forward(relu(self.encoder.forward(x)));
        let stats = self.to_stats.forward(hidden);
        let mean = stats.clone().narrow(1, 0, self.latent_dim); // ok
        let log_var = stats.narrow(1, self.latent_dim, self.latent_dim); // ok
        (mean, log_var)
    }

    pub fn decode(&self, z: Tensor<2>) -> Tensor<4> {
        let [batch, _] = z.dims();
        let x = relu(self.decoder_hidden.forward(z));
        let x = sigmoid(self.decoder_out.forward(x));
        x.reshape([batch, 1, self.image_side, self.image_side]) // ok
    }

    pub fn forward(&self, images: Tensor<4>) -> VaeOutput {
        let (mean, log_var) = self.encode(images);
        let std = (log_var.clone() * 0.5).exp();
        let eps = std.random_like(Distribution::Normal(0.0, 1.0));
        let z = mean.clone() + eps * std; // ok
        VaeOutput { reconstruction: self.decode(z), mean, log_var }
    }
}

/// Reconstruction plus `beta` times the KL divergence to the unit Gaussian.
pub fn vae_loss(output: VaeOutput, images: Tensor<4>, beta: f64) -> Tensor<1> {
    let recon = MseLoss::new().forward(output.reconstruction, images, Reduction::Sum); // ok
    let mean_sq = output.mean.clone() * output.mean; // ok
    let kl = (output.log_var.clone() + 1.0 - mean_sq - output.log_var.exp()).sum() * -0.5; // ok
    recon + kl * beta // ok
}

/// The first version of the split, kept for the probe of the old checkpoints.
fn split_stats(stats: Tensor<2>, latent: usize) -> (Tensor<2>, Tensor<2>) {
    let mean = stats.clone().narrow(1, 0, latent); // ok
    let log_var = stats.narrow(1, latent, 2 * latent); // expect: narrow-out-of-range
    (mean, log_var)
}

/// The latent statistics of a fresh encoder on noise.
pub fn probe_latents(device: &Device) {
    let encoder = LinearConfig::new(IMAGE_SIDE * IMAGE_SIDE, HIDDEN_DIM).init(device);
    let to_stats = LinearConfig::new(HIDDEN_DIM, 2 * LATENT_DIM).init(device);
    let noise = Tensor::<2>::random([BATCH_SIZE, IMAGE_SIDE * IMAGE_SIDE], Distribution::Default, device);
    let stats = to_stats.forward(relu(encoder.forward(noise))); // [8, 40]

    let (old_mean, old_log_var) = split_stats(stats.clone(), LATENT_DIM);
    let halves = stats.chunk(2, 1); // ok
    let mean = halves[0].clone();
    let log_var = halves[1].clone();

    let kl = (log_var.clone() + 1.0 - mean.clone() * mean - log_var.exp()).sum_dim(1) * -0.5; // ok
    let kl_total: f32 = kl.clone().sum().into_scalar(); // ok
    let kl_value: f32 = kl.into_scalar(); // expect: into-scalar-multiple-elements
    println!("{:?} {:?} {kl_total} {kl_value}", old_mean.dims(), old_log_var.dims());
}

/// Reconstruction loss of an untrained model against the padded 32x32 test images.
pub fn probe_reconstruction(device: &Device) {
    let model = VaeConfig::new(LATENT_DIM).init(device);
    let z = Tensor::<2>::zeros([BATCH_SIZE, LATENT_DIM], device);
    let recon = model.decode(z); // [8, 1, 28, 28]

    let same_size = Tensor::<4>::zeros([BATCH_SIZE, 1, IMAGE_SIDE, IMAGE_SIDE], device);
    let loss = MseLoss::new().forward(recon.clone(), same_size, Reduction::Mean); // ok
    let padded = Tensor::<4>::zeros([BATCH_SIZE, 1, 32, 32], device);
    let padded_loss = MseLoss::new().forward(recon.clone(), padded, Reduction::Mean); // expect: binary-op-incompatible-shapes
    let background = Tensor::<4>::zeros([1, 1, IMAGE_SIDE, IMAGE_SIDE], device);
    let foreground = recon - background; // ok
    println!("{:?} {:?} {:?}", loss.dims(), padded_loss.dims(), foreground.dims());
}

/// Rows of a grey image for the PNG writer.
fn reshape(pixels: &[f32], shape: [usize; 2]) -> Vec<Vec<f32>> {
    pixels.chunks(shape[1]).take(shape[0]).map(|row| row.to_vec()).collect()
}

/// A 4x4 grid of samples from the prior, for the report.
pub fn sample_grid(device: &Device) -> (Tensor<3>, Vec<Vec<f32>>) {
    let decoder_hidden = LinearConfig::new(LATENT_DIM, HIDDEN_DIM).init(device);
    let decoder_out = LinearConfig::new(HIDDEN_DIM, IMAGE_SIDE * IMAGE_SIDE).init(device);
    let z = Tensor::<2>::random([16, LATENT_DIM], Distribution::Normal(0.0, 1.0), device);

    let take_first = |t: Tensor<2>, n: usize| t.narrow(0, 0, n); // expect: narrow-out-of-range
    let preview = take_first(z.clone(), 8);
    let everything = take_first(z.clone(), 32);
    println!("{:?} {:?}", preview.dims(), everything.dims());

    let pixels = sigmoid(decoder_out.forward(relu(decoder_hidden.forward(z)))); // [16, 784]
    let images = pixels.clone().reshape([16, 1, IMAGE_SIDE, IMAGE_SIDE]); // ok
    let side = IMAGE_SIDE;
    let rows = pixels.clone().reshape([4, 4 * side, side]); // ok
    let side = side + 4; // thumbnails get a 2-pixel border
    let thumbs = pixels.reshape([16, 1, side, side]); // expect: reshape-incompatible-shape
    println!("{:?} {:?}", images.dims(), thumbs.dims());

    let png_rows = reshape(&vec![0.0; IMAGE_SIDE * IMAGE_SIDE], [side, side]); // ok
    (rows, png_rows)
}

/// Norms of the convolutional encoder variant (coordinate channels appended after stage one).
pub fn conv_encoder_norms(device: &Device) -> (GroupNorm, GroupNorm) {
    let channels = 32;
    let first = GroupNormConfig::new(8, channels).init(device); // ok
    let channels = channels + 16;
    let second = GroupNormConfig::new(32, channels).init(device); // expect: group-norm-groups-divide-channels
    (first, second)
}

/// The fixed dropout of the published model.
pub fn published_dropout() -> Dropout {
    DropoutConfig::new(DROPOUT).init() // ok
}

/// A model whose sizes come from the command line.
pub fn from_args(device: &Device, args: &[String]) -> Vae {
    let latent: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(LATENT_DIM);
    let side: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(IMAGE_SIDE);
    VaeConfig::new(latent).with_image_side(side).init(device)
}

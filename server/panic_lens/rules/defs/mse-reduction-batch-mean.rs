// A VAE objective: reconstruction (MSE) plus a KL term.
use burn::nn::loss::{KLDivLossConfig, MseLoss, Reduction};
use burn::prelude::*;

const RECON_REDUCTION: Reduction = Reduction::BatchMean;

mod metrics {
    pub enum Reduction {
        BatchMean,
    }
    pub struct MseLoss;
    impl MseLoss {
        pub fn forward(&self, a: f32, b: f32, _r: Reduction) -> f32 {
            (a - b) * (a - b)
        }
    }
}

pub fn objective(recon: Tensor<2>, input: Tensor<2>, log_q: Tensor<2>, p: Tensor<2>, reduction: Reduction) -> Tensor<1> {
    let mse = MseLoss::new();
    let _mean = mse.forward(recon.clone(), input.clone(), Reduction::Mean); // ok
    let _sum = mse.forward(recon.clone(), input.clone(), Reduction::Sum); // ok
    let _chosen = mse.forward(recon.clone(), input.clone(), reduction); // ok
    let _bad = mse.forward(recon.clone(), input.clone(), Reduction::BatchMean); // expect: mse-reduction-batch-mean
    let _via_const = MseLoss::new().forward(recon.clone(), input.clone(), RECON_REDUCTION); // expect: mse-reduction-batch-mean
    let kl = KLDivLossConfig::new().init();
    kl.forward(log_q, p, Reduction::BatchMean) // ok
}

pub fn look_alike() -> f32 {
    metrics::MseLoss.forward(1.0, 2.0, metrics::Reduction::BatchMean) // ok
}

// Lines added with the rule file.
pub fn more(recon: Tensor<2>, input: Tensor<2>) -> Tensor<1> {
    let loss = burn::nn::loss::MseLoss::new();
    let _auto = loss.forward(recon.clone(), input.clone(), Reduction::Auto); // ok
    let _no = loss.forward_no_reduction(recon.clone(), input.clone()); // ok
    let chosen = Reduction::BatchMean;
    loss.forward(recon, input, chosen) // expect: mse-reduction-batch-mean
}

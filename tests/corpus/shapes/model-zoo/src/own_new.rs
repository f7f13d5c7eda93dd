//! burn modules and losses built by their own `new()` (or `default()`) rather than a config.
use burn::nn::loss::{MseLoss, Reduction};
use burn::nn::{Gelu, Relu, Sigmoid, Tanh};
use burn::prelude::*;

mod local {
    use burn::nn::loss::Reduction;
    use burn::prelude::*;

    /// The crate's own loss named like burn's.
    pub struct MseLoss;

    impl MseLoss {
        pub fn new() -> Self {
            Self
        }

        pub fn forward(&self, a: Tensor<2>, b: Tensor<2>, _r: Reduction) -> Tensor<1> {
            (a - b).powf_scalar(2.0).mean()
        }
    }
}

pub fn losses(pred: Tensor<2>, target: Tensor<2>, reduction: Reduction) -> Vec<Tensor<1>> {
    let mse = MseLoss::new();
    let a = mse.forward(pred.clone(), target.clone(), Reduction::Mean); // ok
    let b = mse.forward(pred.clone(), target.clone(), Reduction::BatchMean); // expect: mse-reduction-batch-mean
    let c = MseLoss::default().forward(pred.clone(), target.clone(), Reduction::BatchMean); // expect: mse-reduction-batch-mean
    let d = mse.forward(pred.clone(), target.clone(), reduction); // ok
    let e = local::MseLoss::new().forward(pred, target, Reduction::BatchMean); // ok
    vec![a, b, c, d, e]
}

pub fn activations(device: &Device) -> Vec<Tensor<3>> {
    let x = Tensor::<3>::zeros([2, 5, 8], device);
    let relu = Relu::new();
    let y = relu.forward(x.clone());
    let a = y.clone().narrow(2, 6, 4); // expect: narrow-out-of-range
    let b = y.narrow(2, 4, 4); // ok
    let gelu = Gelu::new();
    let c: Tensor<2> = gelu.forward(x.clone()).squeeze_dim(0); // expect: squeeze-dim-not-one
    let d = Sigmoid::new().forward(x.clone()).topk(9, 2); // expect: topk-k-out-of-range
    let e = Tanh::new().forward(x.clone()).topk(8, 2); // ok
    let f = Relu::default().forward(x).narrow(1, 4, 2); // expect: narrow-out-of-range
    vec![a, b, c.unsqueeze(), d, e, f]
}

/// A loss held in a field, built by `new()` in the struct's constructor.
pub struct Trainer {
    loss: MseLoss,
}

impl Trainer {
    pub fn new() -> Self {
        Self { loss: MseLoss::new() }
    }

    pub fn step(&self, pred: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
        let _mean = self.loss.forward(pred.clone(), target.clone(), Reduction::Sum); // ok
        self.loss.forward(pred, target, Reduction::BatchMean) // expect: mse-reduction-batch-mean
    }
}

// Loss and residual arithmetic.
use burn::prelude::*;

// More of this panic: the corpus example tests/corpus/panics/binary-op-incompatible-shapes/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn batch_known_at_run_time(x: Tensor<2>, device: &Device) -> Tensor<2> {
    let [batch, _] = x.dims();
    let logits = Tensor::<2>::zeros([batch, 10], device);
    let wide = Tensor::<2>::zeros([batch, 12], device);
    let bias = Tensor::<2>::zeros([1, 10], device);
    let _b = logits.clone() + bias.clone(); // ok
    let _x = x.clone() * logits.clone(); // ok (x's dims are not known)
    let _w = logits.clone() * wide; // expect: binary-op-incompatible-shapes
    let _s = 2.0 * logits.clone() - 1.0; // ok
    let _d = Tensor::div(logits.clone(), Tensor::<2>::ones([batch, 3], device)); // expect: binary-op-incompatible-shapes
    logits
}

pub fn comparisons(device: &Device) -> Tensor<2, Bool> {
    let a = Tensor::<2, Int>::arange(0..6, device).reshape([2, 3]);
    let b = Tensor::<2, Int>::zeros([3, 2], device);
    let _ne = a.clone().not_equal(b.clone()); // expect: binary-op-incompatible-shapes
    let _le = a.clone().lower_equal(b.clone()); // expect: binary-op-incompatible-shapes
    let _int = a.clone() - b.clone(); // expect: binary-op-incompatible-shapes
    // `%` runs `remainder`, which has no shape check.
    let _rem = a.clone() % b.clone(); // ok
    let _row = a.clone().greater_equal(Tensor::<2, Int>::zeros([1, 3], device)); // ok
    a.lower(b.transpose()) // ok
}

pub fn generic<const D: usize>(x: Tensor<D>, y: Tensor<D>) -> Tensor<D> {
    x.add(y) // ok (the shapes are not known)
}

#[test]
#[should_panic]
fn mismatched_add_panics() {
    let device = Default::default();
    let _ = Tensor::<1>::zeros([3], &device) + Tensor::<1>::zeros([4], &device); // ok
}

// burn's losses whose forward begins with `sub` between the two tensors: the panic fires inside.
mod losses {
    use burn::nn::loss::{HuberLossConfig, LpLossConfig, MseLoss, Reduction, SmoothL1LossConfig};
    use burn::prelude::*;

    pub struct Trainer {
        mse: MseLoss,
    }

    impl Trainer {
        pub fn step(&self, device: &Device) -> Tensor<1> {
            let pred = Tensor::<2>::zeros([32, 10], device);
            let target = Tensor::<2>::zeros([10, 32], device);
            let column = Tensor::<2>::zeros([32, 1], device);
            let _a = self.mse.forward(pred.clone(), target.clone(), Reduction::Mean); // expect: binary-op-incompatible-shapes
            let _b = MseLoss::new().forward_no_reduction(pred.clone(), column.clone()); // ok
            let huber = HuberLossConfig::new(1.0).init();
            let _c = huber.forward(pred.clone(), target.clone(), Reduction::Sum); // expect: binary-op-incompatible-shapes
            let smooth = SmoothL1LossConfig::new().init();
            let _d = smooth.forward(pred.clone(), target.clone()); // expect: binary-op-incompatible-shapes
            let lp = LpLossConfig::new(2.0).init();
            let _e = lp.forward(pred.clone(), pred.clone(), Reduction::Mean); // ok
            lp.forward(pred, target, Reduction::Mean) // expect: binary-op-incompatible-shapes
        }

        pub fn unknown(&self, pred: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
            self.mse.forward(pred, target, Reduction::Mean) // ok (the shapes are not known)
        }
    }
}

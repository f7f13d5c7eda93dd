// Loss and residual arithmetic.
use burn::prelude::*;

mod local {
    #[derive(Clone)]
    pub struct Vector(pub Vec<f32>);

    impl Vector {
        pub fn add(self, other: Vector) -> Vector {
            Vector(self.0.iter().zip(other.0.iter()).map(|(a, b)| a + b).collect())
        }
    }
}

pub fn mse(device: &Device) -> Tensor<2> {
    let pred = Tensor::<2>::zeros([32, 10], device);
    let target = Tensor::<2>::zeros([10, 32], device);
    let diff = pred.clone() - target; // expect: binary-op-incompatible-shapes
    let _ok = pred.clone().sub(Tensor::<2>::zeros([32, 1], device)); // ok
    diff.clone() * diff // ok
}

pub fn residual(device: &Device) -> Tensor<3> {
    let x = Tensor::<3>::ones([2, 16, 64], device);
    let y = Tensor::<3>::ones([2, 16, 128], device);
    let _scaled = x.clone() * 0.5; // ok
    let _same = x.clone().add(Tensor::<3>::ones([1, 16, 64], device)); // ok
    let _eq = x.clone().equal(y.clone()); // expect: binary-op-incompatible-shapes
    x.add(y) // expect: binary-op-incompatible-shapes
}

pub fn masked(device: &Device) -> Tensor<2, Bool> {
    let a = Tensor::<2, Int>::ones([3, 4], device);
    let b = Tensor::<2, Int>::ones([4, 3], device);
    a.greater(b) // expect: binary-op-incompatible-shapes
}

pub fn combine(a: Tensor<2>, b: Tensor<2>) -> Tensor<2> {
    a + b // ok
}

pub fn look_alikes() -> usize {
    let v = local::Vector(vec![1.0, 2.0]).add(local::Vector(vec![1.0, 2.0, 3.0])); // ok
    let n = 3usize.max(4); // ok
    v.0.len() + n
}

// Logging scalars during training.
use burn::prelude::*;

mod local {
    pub struct Stat(pub Vec<f32>);

    impl Stat {
        pub fn into_scalar<E: Default>(self) -> E {
            E::default()
        }
    }
}

pub fn log(device: &Device) -> f32 {
    let per_sample = Tensor::<1>::zeros([16], device);
    let _bad: f32 = per_sample.clone().into_scalar(); // expect: into-scalar-multiple-elements
    let mean: f32 = per_sample.clone().mean().into_scalar(); // ok
    let one = Tensor::<2>::ones([1, 1], device);
    let _single = one.into_scalar::<f32>(); // ok
    mean
}

pub fn accuracy(device: &Device) -> i64 {
    let hits = Tensor::<2, Int>::zeros([4, 2], device);
    let _maybe = hits.clone().try_into_scalar::<i64>(); // expect: into-scalar-multiple-elements
    hits.into_scalar::<i64>() // expect: into-scalar-multiple-elements
}

pub fn read(x: Tensor<1>) -> f32 {
    x.into_scalar::<f32>() // ok
}

pub fn look_alikes() -> f32 {
    let s = local::Stat(vec![1.0, 2.0]).into_scalar::<f32>(); // ok
    let v = vec![1.0f32, 2.0];
    s + v.iter().sum::<f32>() // ok
}

// Lines added with the rule file.
pub async fn more(device: &Device) -> f32 {
    let x = Tensor::<3>::ones([1, 1, 1], device);
    let _one: f32 = x.clone().into_scalar(); // ok
    let y = x.reshape([1, 1]);
    let _still_one = y.into_scalar::<f32>(); // ok
    let pair = Tensor::<1>::from_floats([1.0, 2.0], device);
    pair.into_scalar_async::<f32>().await.unwrap() // expect: into-scalar-multiple-elements
}

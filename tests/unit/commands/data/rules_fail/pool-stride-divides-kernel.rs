use burn::tensor::module::max_pool1d;
use burn::tensor::Tensor;

fn pool(x: Tensor<3>) {
    max_pool1d(x.clone(), 3, 2, 0, 1, false); // expect: pool-stride-divides-kernel
    max_pool1d(x.clone(), 4, 2, 0, 1, false); // expect: pool-stride-divides-kernel
    max_pool1d(x.clone(), 5, 2, 0, 1, false); // ok
    max_pool1d(x.clone(), 3, 0, 0, 1, false); // ok
}

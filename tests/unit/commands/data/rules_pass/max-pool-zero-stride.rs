use burn::tensor::module::max_pool1d;
use burn::tensor::Tensor;

const STILL: usize = 0;

fn pool(x: Tensor<3>, s: usize) {
    max_pool1d(x.clone(), 3, 0, 0, 1, false); // expect: max-pool-zero-stride
    max_pool1d(x.clone(), 3, STILL, 0, 1, false); // expect: max-pool-zero-stride
    max_pool1d(x.clone(), 3, 1, 0, 1, false); // ok
    max_pool1d(x.clone(), 3, s, 0, 1, false); // ok (s is not known here)
    burn::tensor::module::max_pool1d(x, 2, 0, 0, 1, false); // expect: max-pool-zero-stride
}

mod local {
    pub fn max_pool1d(_: u8, _: usize, _: usize, _: usize, _: usize, _: bool) {}
    fn call() {
        max_pool1d(0, 3, 0, 0, 1, false); // ok (a local function of the same name)
    }
}

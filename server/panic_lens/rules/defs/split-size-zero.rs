// Splitting long sequences into chunks for truncated backprop.
use burn::prelude::*;

const CHUNK: usize = 0;

mod local {
    pub struct Text(pub String);

    impl Text {
        pub fn split(&self, _size: usize, _dim: usize) -> Vec<String> {
            self.0.split(' ').map(String::from).collect()
        }
    }
}

pub fn chunks(device: &Device) -> Vec<Tensor<2>> {
    let seq = Tensor::<2>::zeros([4, 100], device);
    let _bad = seq.clone().split(CHUNK, 1); // expect: split-size-zero
    let _fine = seq.clone().split(25, 1); // ok
    let _last = seq.clone().split(30, -1); // ok
    seq.split(0, 0) // expect: split-size-zero
}

pub fn by_parts(seq: Tensor<2>, parts: usize) -> Vec<Tensor<2>> {
    let size = seq.dims()[1] / parts;
    seq.split(size, 1) // ok
}

pub fn look_alikes() -> usize {
    let t = local::Text("a b".to_string());
    let words = t.split(0, 1); // ok
    let parts: Vec<&str> = "a,b".split(',').collect(); // ok
    words.len() + parts.len()
}

// Lines added with the rule file.
pub fn more(device: &Device) -> Vec<Tensor<2>> {
    let x = Tensor::<2>::zeros([4, 100], device);
    let _neg = x.clone().split(0, -1); // expect: split-size-zero
    let _one = x.clone().split(1, -2); // ok
    // An empty dimension accepts split_size 0.
    let empty = Tensor::<2>::zeros([0, 3], device);
    empty.split(0, 0) // ok
}

// Sliding windows over a univariate time series.
use burn::data::dataset::transform::{Windows, WindowsDataset};
use burn::data::dataset::{Dataset, InMemDataset};

const HORIZON: usize = 0;

mod local {
    pub struct WindowsDataset {
        pub size: usize,
    }

    impl WindowsDataset {
        pub fn new(_items: Vec<f32>, size: usize) -> Self {
            WindowsDataset { size }
        }
    }
}

pub fn train_windows(series: Vec<f32>) -> WindowsDataset<InMemDataset<f32>, f32> {
    WindowsDataset::new(InMemDataset::new(series), 0) // expect: windows-size-zero
}

pub fn eval_windows(series: Vec<f32>) -> WindowsDataset<InMemDataset<f32>, f32> {
    WindowsDataset::new(InMemDataset::new(series), 24) // ok
}

pub fn horizon(series: Vec<f32>) -> usize {
    let data = InMemDataset::new(series);
    let _short = WindowsDataset::new(InMemDataset::new(vec![1.0f32, 2.0]), 10); // ok
    let count = data.windows(HORIZON).count(); // expect: windows-size-zero
    count + data.len()
}

pub fn configured(series: Vec<f32>, size: usize) -> WindowsDataset<InMemDataset<f32>, f32> {
    WindowsDataset::new(InMemDataset::new(series), size) // ok
}

pub fn look_alikes() -> usize {
    let w = local::WindowsDataset::new(vec![1.0], 0); // ok
    let v = [1, 2, 3];
    let n = v.windows(2).count(); // ok
    w.size + n
}

// Lines added with the rule file.
pub fn more(series: Vec<f32>) -> usize {
    let data = InMemDataset::new(series);
    let a = burn::data::dataset::transform::WindowsDataset::new(InMemDataset::new(vec![1.0f32]), HORIZON + 1).len(); // ok
    let b = data.windows(3).count(); // ok
    let c = Windows::windows(&data, 0).count(); // expect: windows-size-zero
    a + b + c
}

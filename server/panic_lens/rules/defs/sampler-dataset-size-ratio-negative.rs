// Oversampling and subsampling a training set.
use burn::data::dataset::transform::{SamplerDataset, SamplerDatasetOptions, SizeConfig};
use burn::data::dataset::InMemDataset;

const VALID_SHARE: f64 = 1.2;

// More of this panic: the corpus example tests/corpus/panics/sampler-dataset-size-ratio-negative/example.rs,
// checked with the shipped rules (tests/corpus/test_panics_corpus.py).
pub fn more(ds: InMemDataset<u32>) -> Vec<SamplerDataset<InMemDataset<u32>, u32>> {
    let shrink = SamplerDatasetOptions::default().without_replacement().with_size_ratio(-0.25); // todo-expect: sampler-dataset-size-ratio-negative (the receiver type is lost after without_replacement)
    let late = SamplerDatasetOptions::default().with_size_ratio(-0.25).without_replacement(); // expect: sampler-dataset-size-ratio-negative
    let fixed = SamplerDatasetOptions::default().with_size(64usize); // ok (a fixed size)
    let source = SamplerDatasetOptions::default().with_source_size().with_size_ratio(0.0); // ok
    let twice = burn::data::dataset::transform::SamplerDatasetOptions::default().with_size(2.0); // ok
    vec![
        SamplerDataset::new(ds.clone(), shrink),
        SamplerDataset::new(ds.clone(), late),
        SamplerDataset::new(ds.clone(), fixed),
        SamplerDataset::new(ds.clone(), source),
        SamplerDataset::new(ds, twice),
    ]
}

pub fn variants(ds: InMemDataset<u32>, share: f64) -> (SamplerDataset<InMemDataset<u32>, u32>, usize) {
    let opts = SamplerDatasetOptions::default().with_size(SizeConfig::Ratio(-1.5)); // expect: sampler-dataset-size-ratio-negative
    let direct = SizeConfig::Ratio(1.0 - 2.0 * VALID_SHARE).resolve(100); // expect: sampler-dataset-size-ratio-negative
    let _fine = SizeConfig::Ratio(share).resolve(100) + SizeConfig::Fixed(3).resolve(100); // ok
    (SamplerDataset::new(ds, opts), direct)
}

// A later size setter replaces the ratio before the options reach the sampler.
pub fn replaced(ds: InMemDataset<u32>) -> Vec<SamplerDataset<InMemDataset<u32>, u32>> {
    let chained = SamplerDatasetOptions::default().with_size_ratio(-1.0).without_replacement().with_source_size(); // ok (the source size replaces the ratio)
    let mut options = SamplerDatasetOptions::default().with_size_ratio(-1.0); // ok (a fixed size replaces it below)
    options = options.with_fixed_size(10);
    let kept = SamplerDatasetOptions::default().with_size_ratio(-1.0); // expect: sampler-dataset-size-ratio-negative
    let seeded = kept.clone().with_seed(3);
    let copy = kept.clone().with_source_size(); // (a copy's size; `kept` keeps its ratio)
    vec![
        SamplerDataset::new(ds.clone(), chained),
        SamplerDataset::new(ds.clone(), options),
        SamplerDataset::new(ds.clone(), kept),
        SamplerDataset::new(ds.clone(), seeded),
        SamplerDataset::new(ds, copy),
    ]
}

// Metrics for a multiclass image classifier.
use burn::train::metric::{
    AccuracyMetric, ClassReduction, FBetaScoreMetric, PrecisionMetric, RecallMetric,
};

const TOP_K: usize = 0;

mod local {
    pub struct PrecisionMetric {
        pub k: usize,
    }

    impl PrecisionMetric {
        pub fn multiclass(k: usize) -> Self {
            PrecisionMetric { k }
        }
    }
}

pub fn metrics() -> (PrecisionMetric, RecallMetric, FBetaScoreMetric) {
    let precision = PrecisionMetric::multiclass(0, ClassReduction::Macro); // expect: classification-metric-top-k-zero
    let recall = RecallMetric::multiclass(TOP_K, ClassReduction::Micro); // expect: classification-metric-top-k-zero
    let f1 = FBetaScoreMetric::multiclass(1.0, 1, ClassReduction::Macro); // ok
    (precision, recall, f1)
}

pub fn more(k: usize) -> (PrecisionMetric, FBetaScoreMetric, AccuracyMetric) {
    let p = PrecisionMetric::multiclass(k, ClassReduction::Macro); // ok
    let f2 = FBetaScoreMetric::multiclass(2.0, 0, ClassReduction::Micro); // expect: classification-metric-top-k-zero
    let _bin = PrecisionMetric::binary(0.0); // ok
    (p, f2, AccuracyMetric::new())
}

pub fn look_alikes() -> usize {
    let p = local::PrecisionMetric::multiclass(0); // ok
    let v: Vec<usize> = Vec::with_capacity(0); // ok
    p.k + v.len()
}

// Lines added with the rule file.
pub fn full_paths() -> (RecallMetric, FBetaScoreMetric) {
    let r = burn::train::metric::RecallMetric::multiclass(3, ClassReduction::Macro); // ok
    let f = burn::train::metric::FBetaScoreMetric::multiclass(0.5, TOP_K, ClassReduction::Macro); // expect: classification-metric-top-k-zero
    (r, f)
}

// Metrics for a translation model.
use burn::train::metric::BleuScore;

const ORDER: usize = 0;

mod local {
    pub struct BleuScore {
        pub n: usize,
    }

    impl BleuScore {
        pub fn with_max_n(n: usize) -> Self {
            BleuScore { n }
        }
    }
}

pub fn bleu_metrics() -> Vec<BleuScore> {
    vec![
        BleuScore::with_max_n(0), // expect: bleu-max-n-zero
        BleuScore::with_max_n(ORDER), // expect: bleu-max-n-zero
        BleuScore::with_max_n(1), // ok
        BleuScore::new(), // ok
    ]
}

pub fn configured(order: usize) -> BleuScore {
    BleuScore::with_max_n(order) // ok
}

pub fn look_alikes() -> usize {
    let b = local::BleuScore::with_max_n(0); // ok
    let v: Vec<u8> = Vec::with_capacity(0); // ok
    b.n + v.len()
}

// Lines added with the rule file.
pub fn more() -> Vec<BleuScore> {
    vec![
        burn::train::metric::BleuScore::with_max_n(ORDER * 4), // expect: bleu-max-n-zero
        BleuScore::with_max_n(ORDER + 2), // ok
        BleuScore::default(), // ok
    ]
}

// The same calls outside a macro.
pub fn outside_a_macro(order: usize) -> [BleuScore; 3] {
    let zero = BleuScore::with_max_n(0); // expect: bleu-max-n-zero
    let from_const = BleuScore::with_max_n(ORDER); // expect: bleu-max-n-zero
    let unknown = BleuScore::with_max_n(order); // ok
    [zero, from_const, unknown]
}

//! The crate's own types and functions named like burn's, with other rules: none of their
//! calls reaches a burn guard.

/// A 2-d buffer with burn-like methods that clamp instead of panicking.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub dims: [usize; 2],
}

impl Tensor {
    pub fn zeros(dims: [usize; 2]) -> Self {
        Self { dims }
    }

    pub fn narrow(self, dim: usize, start: usize, length: usize) -> Self {
        let mut dims = self.dims;
        dims[dim] = length.min(dims[dim].saturating_sub(start));
        Self { dims }
    }

    pub fn topk(self, k: usize, dim: usize) -> Self {
        let mut dims = self.dims;
        dims[dim] = k.min(dims[dim]);
        Self { dims }
    }

    pub fn reshape(self, dims: [usize; 2]) -> Self {
        Self { dims }
    }

    pub fn swap_dims(self, a: usize, b: usize) -> Self {
        let mut dims = self.dims;
        dims.swap(a, b);
        Self { dims }
    }

    pub fn cat(parts: Vec<Tensor>, dim: usize) -> Self {
        let mut dims = parts[0].dims;
        dims[dim] = parts.iter().map(|t| t.dims[dim]).sum();
        Self { dims }
    }
}

/// Rounds the group count down to a divisor instead of panicking.
pub struct GroupNormConfig {
    pub num_groups: usize,
    pub num_channels: usize,
}

impl GroupNormConfig {
    pub fn new(num_groups: usize, num_channels: usize) -> Self {
        Self { num_groups, num_channels }
    }

    pub fn init(&self) -> usize {
        (1..=self.num_groups).rev().find(|g| self.num_channels % g == 0).unwrap_or(1)
    }
}

/// Clamps the probability.
pub struct DropoutConfig {
    pub prob: f64,
}

impl DropoutConfig {
    pub fn new(prob: f64) -> Self {
        Self { prob }
    }

    pub fn init(&self) -> f64 {
        self.prob.clamp(0.0, 1.0)
    }
}

pub fn relu(x: Tensor) -> Tensor {
    x.reshape([1, 1])
}

//! The crate's prelude: burn's AsyncPolicy under the crate's own path.

pub use burn::rl::{AsyncPolicy, Policy};
pub use burn::rl::AsyncPolicy as Served;

//! Names re-exported through the crate's own modules, across files.

pub mod prelude;
mod agent;
pub mod nested;
mod lookalike;

//! blind-8: code that does not panic but looks as if it did to a checker that follows values
//! and shapes naively (shadowed names, control flow that fixes a value before use, values
//! mutated after their `let`, the crate's own types and generics named like burn's, and shapes
//! that only look incompatible), with a few calls that really panic, written against burn
//! 0.22's `Tensor<D>` API.

pub mod control_flow;
pub mod data_flow;
pub mod hparams;
pub mod mutation;
pub mod shadowing;
pub mod types_generics;

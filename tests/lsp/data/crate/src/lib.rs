//! One risky call per rule, next to its safe twin.

pub mod resize;
pub mod rl;
pub mod speech;
pub mod tokens;

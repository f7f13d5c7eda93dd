//! A vision crate written against burn 0.21's generic API (`Model<B: Backend>`,
//! `Tensor<B, D>`), as most published burn projects still are.

pub mod resnet;

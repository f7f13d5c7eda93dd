//! A model crate written the way burn 0.22 users write one; each module is one code shape.

pub mod attention;
pub mod branches;
pub mod consts;
pub mod elementwise;
pub mod fields;
pub mod float_consts;
pub mod helpers;
pub mod hparams;
pub mod lookalike;
pub mod loops;
pub mod mnist;
pub mod module_shapes;
pub mod modules;
pub mod own_new;
pub mod own_types;
pub mod partial;
pub mod reshaping;
pub mod scoping;
pub mod training;
pub mod user_configs;

//! blind-9: code that does not panic but looks as if it did to a checker that follows values
//! and shapes naively (module fields built by several constructors and swapped at run time,
//! values exactly at the boundary burn accepts, generic and iterator-heavy code, and a data
//! pipeline whose shapes agree by construction), with a few calls that really panic, written
//! against burn 0.22's `Tensor<D>` API.

pub mod generic_code;
pub mod modules_state;
pub mod numeric_edge;
pub mod pipeline;

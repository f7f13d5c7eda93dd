//! Padding widths shared by the whole crate.

/// Whole-book transcripts: too wide for the cubecl kernel.
pub const BOOK_WIDTH: usize = 6_000;
/// Chapter transcripts: the widest that passes.
pub const CHAPTER_WIDTH: usize = 4095;
pub const HALF_BOOK: usize = BOOK_WIDTH / 2; // division is not evaluated: unknown

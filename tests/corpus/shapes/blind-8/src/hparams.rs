//! Hyper-parameters the modules share (declarations only).

/// Features of one token.
pub const WIDTH: usize = 12;
/// Rows of one batch.
pub const BATCH: usize = 4;
/// Channels of the vision stem.
pub const CHANNELS: usize = 48;
/// Groups of the text model's norm (it has 40 channels).
pub const GROUPS: usize = 5;

pub mod vision {
    /// Groups of the vision stem's norm: divides its 48 channels.
    pub const GROUPS: usize = 6;
    /// Centre crop of a 12-pixel row.
    pub const CROP: usize = 8;
}

pub mod text {
    /// Top-k of the text head.
    pub const TOP_K: usize = 30;
    /// Channels of the text model.
    pub const CHANNELS: usize = 40;
}

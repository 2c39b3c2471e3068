//! What one directive asks for: its flags, width and precision, and an integer's base.

/// Flags, width and precision of one directive (Go's `fmtFlags` plus `wid`, `prec`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Flags {
    pub(super) wid_present: bool,
    pub(super) prec_present: bool,
    pub(super) minus: bool,
    pub(super) plus: bool,
    pub(super) sharp: bool,
    pub(super) space: bool,
    pub(super) zero: bool,
    pub(super) sharp_v: bool,
    pub(super) wid: i64,
    pub(super) prec: i64,
}

/// Bases of `fmtInteger`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Base {
    Bin = 2,
    Oct = 8,
    Dec = 10,
    Hex = 16,
}

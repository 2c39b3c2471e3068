//! The engine's entry limits: what a request may hold before the engine refuses it whole.

use crate::error::{Error, ErrorKind};

/// The most templates, patch sets, patches, transforms or pipeline steps one list may hold.
pub const MAX_ITEMS: usize = 100_000;

/// The engine's refusal of a list over [`MAX_ITEMS`] at `at` (`composition.spec`, or a step's
/// `composition.spec.pipeline[0].input`).
#[must_use]
pub fn too_many(at: &dyn std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::Limit,
        format!("{at}: more than {MAX_ITEMS} entries"),
    )
}

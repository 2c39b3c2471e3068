//! Entry points into the engine's internals for the test suites in `tests/`.
//!
//! Not part of the public API: no stability promise, hidden from the docs.

pub mod fieldpath;
pub mod fmt;
pub mod transform;

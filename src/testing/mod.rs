//! Entry points into the engine's internals for the test suites in `tests/`.
//!
//! Not part of the public API: no stability promise, hidden from the docs.

pub mod fieldpath;
pub mod fmt;
pub mod transform;

use crate::value::Value;
use crate::value::read::Numbers;

/// The render of `request` read as a whole by a fresh engine, never through kept Compositions.
#[must_use]
pub fn render_json_unkept(request: &str) -> String {
    crate::Engine::new().respond(crate::Request::from_json(request))
}

/// A JSON text as function semantics gives it to the function: read as a
/// function-semantics request is read, then every number a float64, as the
/// protobuf `Struct`s that carry it hold them (`compose::wire::structured`).
///
/// # Errors
/// The reader's error text.
pub fn struct_reading(text: &str) -> Result<Value, String> {
    let (mut v, _) = Value::from_json_with(text, Numbers::Struct).map_err(|e| e.to_string())?;
    v.floats_everywhere();
    Ok(v)
}

/// The render of `request` handed over as bytes, as the core module's ABI renders it.
#[must_use]
pub fn render_bytes(engine: &mut crate::Engine, request: &[u8]) -> String {
    engine.render_bytes(request)
}

/// How many Compositions `engine` keeps, and their bytes of text.
#[must_use]
pub fn kept_compositions(engine: &crate::Engine) -> (usize, usize) {
    engine.kept_compositions()
}

/// How many decodings the kept Compositions hold (one per semantics rendered with).
#[must_use]
pub fn kept_decodings(engine: &crate::Engine) -> usize {
    engine.kept_decodings()
}

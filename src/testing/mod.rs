//! Entry points into the engine's internals for the test suites in `tests/`.
//!
//! Not part of the public API: no stability promise, hidden from the docs.

pub mod fieldpath;
pub mod fmt;
pub mod transform;

use crate::value::Value;
use crate::value::read::Numbers;

/// The render of `request` read as a whole, never through the instance's kept Compositions.
#[must_use]
pub fn render_json_unkept(request: &str) -> String {
    crate::respond(crate::Request::from_json(request))
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
pub fn render_bytes(request: &[u8]) -> String {
    crate::render_bytes(request)
}

/// How many Compositions this instance keeps, and their bytes of text.
#[must_use]
pub fn kept_compositions() -> (usize, usize) {
    crate::plan::footprint()
}

/// How many compiled plans the kept Compositions hold (one per semantics rendered with).
#[must_use]
pub fn kept_plans() -> usize {
    crate::plan::plans()
}

/// Forgets the Compositions this instance keeps.
pub fn forget_compositions() {
    crate::plan::clear();
}

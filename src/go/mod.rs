//! The parts of Go's runtime the engine reproduces byte for byte: `strconv`
//! (float formatting, quoting, `IsPrint`, number parsing), `encoding/json`'s
//! scanner (which words invalid JSON), go-json-experiment's unmarshal errors,
//! RFC 3339 times, and strings as bytes.
//!
//! This is the engine's ground floor: it depends on nothing else in the
//! crate, so `value`, `fmt` and `compose` all build on it without cycles
//! (`tests/structure.rs` keeps it so).

pub(crate) mod bytestr;
pub(crate) mod duration;
pub(crate) mod json_experiment;
pub(crate) mod json_scan;
pub(crate) mod rfc3339;
pub(crate) mod strconv;

pub(crate) use strconv::quote;
